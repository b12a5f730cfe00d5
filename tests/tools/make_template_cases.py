#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/template/cases.jsonl: small templates with their variables and what Python
Jinja2, set up as transformers sets it up (render_template.py), makes of them: the text, or
the error code. The C++ suite replays them without Python.

usage: make_template_cases.py OUT.jsonl
"""
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from render_template import make_environment, error_of  # noqa: E402

CASES = [
    # whitespace control, trim_blocks, lstrip_blocks, comments, raw
    ("{% if true %}\n  yes\n{% endif %}\n", {}),
    ("  {% if true %}x{% endif %}  \n{{ 'a' }}\n", {}),
    ("a {%- if true -%} b {%- endif -%} c", {}),
    ("a\n    {# comment #}\nb\n{#- c -#}\n  d", {}),
    ("{% raw %}{{ not evaluated }}{% endraw %}", {}),
    ("{{- ' x ' -}}  \n  {{ 'y' }}\n\n", {}),
    ("line\r\nnext\rlast\n", {}),
    ("  {%+ if true %}kept{% endif %}", {}),
    # expressions
    ("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 / 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 1.0 }} {{ 1e20 }} {{ 0.1 + 0.2 }}", {}),
    ("{{ 'a' ~ 1 ~ none ~ true }} {{ [1, 'x', none, true, 2.5] }} {{ {'k': [1, {'n': none}]} }}", {}),
    ("{{ \"it's\" }} {{ [\"it's\", 'say \"hi\"', 'tab\\t', '\\u200d'] }}", {}),
    ("{{ x[1:] }} {{ x[::-1] }} {{ x[-1] }} {{ s[2:4] }} {{ s[-2:] }} {{ s|length }}", {"x": [1, 2, 3], "s": "日本語テキスト"}),
    ("{{ 1 if x else 2 }} {{ 'y' if not x }} {{ x or 'd' }} {{ x and 'd' }}", {"x": 0}),
    ("{{ 1 < 2 < 3 }} {{ 'a' in 'cat' }} {{ 3 not in [1, 2] }} {{ 'k' in {'k': 1} }}", {}),
    ("{{ '%s-%d' % ('a', 3) }} {{ '{} and {}'.format('x', 2) }}", {}),
    ("{{ d['items'] }}{{ d.get('missing', 'dflt') }}{{ d.get('items') }}", {"d": {"items": 3}}),
    ("{{ none.x }}|{{ [1][5] }}|{{ {'a': 1}.b }}|{{ y }}", {}),
    # *args and **kwargs in calls (Jamba's template uses them)
    ("{% macro f(a, b, c=3) %}{{a}}{{b}}{{c}}{% endmacro %}{{ f(*[1, 2]) }}|{{ f(1, *[2], c=9) }}|{{ f(**{'a': 7, 'b': 8}) }}|{{ f(*xs, **kw) }}", {"xs": [4, 5], "kw": {"c": 6}}),
    ("{{ '{}-{}'.format(*['x', 'y']) }} {{ range(*[1, 4])|list }} {{ dict(**{'a': 1})|tojson }}", {}),
    ("{% macro f(a) %}{{a}}{% endmacro %}{{ f(*3) }}", {}),
    ("{% macro f(a) %}{{a}}{% endmacro %}{{ f(**3) }}", {}),
    ("{{ dict(**{'a': 1}, b=2) }}", {}),
    ("{{ f(a=1, 2) }}", {}),
    # statements
    ("{% for i in range(3) %}{% if i == 0 %}{% set x = 'a' %}{% endif %}[{{ x }}]{% endfor %}", {}),
    ("{% set x = 1 %}{% for i in range(2) %}{{ x }}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}", {}),
    ("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}", {}),
    ("{% for k, v in d.items() %}{{ loop.index }}{{ k }}={{ v }}{% if not loop.last %},{% endif %}{% endfor %}", {"d": {"b": 1, "a": 2}}),
    ("{% for x in xs if x > 1 %}{{ loop.index0 }}:{{ x }}:{{ loop.length }}{{ loop.previtem }}/{{ loop.nextitem }} {% else %}none{% endfor %}", {"xs": [1, 2, 3]}),
    ("{% for x in [] %}x{% else %}empty{% endfor %}", {}),
    ("{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("{% macro m(a, b='B') %}<{{ a }}{{ b }}>{% endmacro %}{{ m(1) }}{{ m(1, b=2) }}{{ m('x', 'y') }}", {}),
    ("{% macro m() %}{{ y }}{% endmacro %}{% set y = 5 %}{{ m() }}", {}),
    ("{% macro r(n) %}{% if n > 0 %}{{ n }}{{ r(n - 1) }}{% endif %}{% endmacro %}{{ r(3) }}", {}),
    ("{% set block %}  inner {{ 1 + 1 }}  {% endset %}[{{ block }}][{{ block|trim }}]", {}),
    ("{% generation %}gen {{ 1 }}{% endgeneration %}", {}),
    ("{% for a in [1, 2] %}{% for b in [3] %}{{ loop.depth }}{{ a }}{{ b }}{% endfor %}{% endfor %}", {}),
    # filters
    ("{{ [3, 1, 2]|sort }} {{ ['b', 'A', 'a']|sort }} {{ ['b', 'A', 'a']|unique|list }} {{ 'Hello World'|lower }} {{ 'x'|upper }}", {}),
    ("{{ d|tojson }} {{ d|tojson(indent=2) }} {{ 'é'|tojson(ensure_ascii=True) }} {{ d|tojson(sort_keys=true) }}", {"d": {"b": [1, 2.0, None, True], "a": "é\"\n"}}),
    ("{{ xs|map(attribute='n')|join(',') }} {{ xs|selectattr('n', 'equalto', 2)|list }} {{ xs|rejectattr('n', 'none')|list|length }}", {"xs": [{"n": 1}, {"n": 2}, {"n": None}]}),
    ("{{ ['a', 'b']|map('upper')|list }} {{ [1, 2, 3]|select('odd')|list }} {{ [1, 2, 3]|reject('equalto', 2)|list }}", {}),
    ("{{ d|dictsort }} {{ d|items|list }} {{ d|length }} {{ d|list }} {{ d|first }}", {"d": {"b": 1, "A": 2, "a": 3}}),
    ("{{ '  x  '|trim }}|{{ 'xxhixx'|trim('x') }}|{{ x|default('d') }}|{{ ''|default('d', true) }}|{{ none|string }}", {}),
    ("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ 3.7|int }}|{{ '42'|int }}|{{ 'x'|int }}|{{ '2.5'|float }}|{{ -3|abs }}|{{ 2.567|round(2) }}", {}),
    ("{{ [1, 2, 3]|sum }} {{ [3, 1]|max }} {{ [3, 1]|min }} {{ [1, 2, 3]|reverse|list }} {{ 'abc'|reverse }} {{ [1, 2, 3]|last }} {{ 'a b  c'|wordcount }}", {}),
    ("{{ '<b>&'|e }} {{ 'x'|safe + '<' }} {{ '<'|safe }} {{ 'hello world'|title }} {{ 'hello'|capitalize }} {{ 'x'|center(5) }}|", {}),
    ("{{ '%s=%s'|format('a', 1) }} {{ [1, 2, 3, 4, 5]|batch(2)|list }} {{ 'ab'|replace('a', 'z') }}", {}),
    # tests
    ("{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ 1 is number }} {{ true is number }} {{ 1 is integer }} {{ 1.0 is float }} {{ 's' is string }} {{ {} is mapping }} {{ [] is iterable }} {{ 's' is sequence }} {{ 3 is odd }} {{ 4 is even }} {{ 6 is divisibleby 3 }} {{ true is boolean }} {{ false is false }} {{ 2 is in [1, 2] }} {{ 1 is eq 1 }}", {"x": 1}),
    # methods
    ("{{ ' a b '.strip() }}|{{ 'xay'.strip('xy') }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'a b c'.rsplit(' ', 1) }}", {}),
    ("{{ 'Hello'.startswith('He') }} {{ 'Hello'.endswith(('x', 'lo')) }} {{ 'aXa'.replace('a', 'b') }} {{ 'abc'.find('c') }} {{ 'ÄbC'.upper() }} {{ 'ÄbC'.lower() }} {{ 'hello world'.title() }} {{ 'x\\ny'.splitlines() }}", {}),
    ("{{ [1, 2, 2].count(2) }} {{ [1, 2].index(2) }} {{ d.keys()|list }} {{ d.values()|list }} {{ ', '.join(['a', 'b']) }}", {"d": {"a": 1, "b": 2}}),
    ("{{ strftime_now('%Y-%m-%d %H:%M %b %A') }}", {}),
    # errors
    ("{{ raise_exception('refused: ' ~ 1) }}", {}),
    ("{{ x.y }}", {}),
    ("{{ 'a' + 1 }}", {}),
    ("{{ 1 / 0 }}", {}),
    ("{{ messages.append(1) }}", {"messages": []}),
    ("{% for x in 1 %}{% endfor %}", {}),
    ("{{ none|length }}", {}),
    ("{{ x|tojson }}", {}),
    ("{{ 'a' < 1 }}", {}),
    ("{% if %}", {}),
    ("{{ 1 + }}", {}),
    ("{% for x in y %}no end", {}),
    ("{% endfor %}", {}),
    ("{{ x|no_such_filter }}", {"x": 1}),
    ("{% if false %}{{ x|no_such_filter }}{% endif %}ok", {}),
    ("{% unknowntag %}", {}),
]


def main():
    env = make_environment()
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        for source, variables in CASES:
            case = {"template": source, "variables": variables}
            try:
                case["text"] = env.from_string(source).render(**variables)
            except Exception as e:  # noqa: BLE001 - every failure is a case
                case["error"] = error_of(e)[0]
            out.write(json.dumps(case, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
