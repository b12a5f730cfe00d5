#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes about N MB of real multilingual text: the human translations in the system's
gettext catalogs (/usr/share/locale/*/LC_MESSAGES/*.mo: Cyrillic, CJK, Devanagari, Greek,
Bengali, Georgian, Hangul, Arabic, Tamil and Latin-script languages), one document per
catalog (long ones cut to 50 000 characters), shuffled with a fixed seed, documents
separated by blank lines (as bench/token_speed.sh splits them). Not a corpus that repeats
a few snippets.

usage: make_real_text.py [MB] > text.txt
"""
import glob
import gettext
import random
import sys


def main():
    limit = float(sys.argv[1] if len(sys.argv) > 1 else 10) * 1e6
    docs = []
    for path in sorted(glob.glob('/usr/share/locale/*/LC_MESSAGES/*.mo')):
        try:
            with open(path, 'rb') as f:
                catalog = gettext.GNUTranslations(f)._catalog  # noqa: SLF001
        except Exception:  # noqa: BLE001 (a catalog Python cannot read is skipped)
            continue
        texts = [v for k, v in catalog.items() if k and isinstance(v, str) and v]
        if texts:
            docs.extend('\n'.join(texts).split('\n\n'))
    random.Random(28).shuffle(docs)
    out, size = [], 0
    for d in docs:
        d = d[:50000]
        out.append(d)
        size += len(d.encode())
        if size > limit:
            break
    sys.stdout.write('\n\n'.join(out))
    print(f'{len(out)} documents, {size} bytes', file=sys.stderr)


if __name__ == '__main__':
    main()
