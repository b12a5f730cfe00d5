# SPDX-License-Identifier: Apache-2.0
"""A raw completions stream turned into OpenAI chat-completion chunks, as a server would
send them: the model's text arrives in pieces (here: a file read a few bytes at a time);
each piece gives the chunks it completes, reasoning and tool calls in their own fields.

    python3 examples/python/stream_openai.py harmony examples/gpt-oss-completion.txt
"""

from __future__ import annotations

import json
import sys

import ocml


def main() -> None:
    fmt, path = sys.argv[1], sys.argv[2]
    decoder = ocml.Decoder(fmt, events="openai", completion=True, lenient=True, call_id_seed=1)
    with open(path, "rb") as f:
        while piece := f.read(7):  # any chunking gives the same chunks
            for chunk in decoder.push(piece):
                print("data: " + json.dumps(chunk))
    for chunk in decoder.finish():
        print("data: " + json.dumps(chunk))
    print("data: [DONE]")


if __name__ == "__main__":
    main()
