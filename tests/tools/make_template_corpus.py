#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a seeded corpus of OpenAI-style chat requests, one JSON object per line, for the
differential test of ocml's chat-template engine against Python Jinja2 (render_template.py).

Each line: {"messages": [...], "add_generation_prompt": bool, optionally "tools": [...] and
"chat_template_kwargs": {...}}. The shapes are those of real OpenAI chat-completions requests:
a system message or not; 1-6 user/assistant turns; assistant messages with 1-3 parallel tool calls
({"id": "call_...", "type": "function", "function": {"name", "arguments": JSON STRING}}) answered by
role "tool" messages (tool_call_id, sometimes name); assistant `reasoning_content`; function tools
with JSON-schema parameters; user content sometimes a list of text parts; unicode, whitespace,
quotes, backslashes, braces, long texts; numbers of every JSON shape in arguments.

add_generation_prompt is true on about 60% of lines (those end with a user or tool message) and
false otherwise (those end with an assistant message). About 5% of lines have no messages or only
a system message; about 5% end with an assistant message that has tool calls and no content.
A quarter of the lines that end with an assistant message and no generation prompt set
"continue_final_message" (a prefill request).

The output depends only on N and SEED.

usage: make_template_corpus.py N SEED > out.jsonl
"""
import io
import json
import random
import string
import sys

# ---------------------------------------------------------------------------------------------
# Text material

PLAIN = [
    "What's the weather like in Paris today?",
    "Can you summarise the attached report in three bullet points?",
    "Thanks, that helps a lot.",
    "Write a haiku about autumn leaves.",
    "How do I reverse a linked list in C++?",
    "Please convert 72 degrees Fahrenheit to Celsius.",
    "I need a flight from Berlin to Lisbon next Tuesday, economy class.",
    "Sure! Here is what I found.",
    "The answer is 42.",
    "Let me check that for you.",
    "Could you explain the difference between TCP and UDP?",
    "OK",
    "yes",
    "Hello!",
    "Explain recursion to a five-year-old.",
    "What is 17 * 23?",
    "Translate 'good morning' into French, German and Japanese.",
    "Book it.",
    "I'm not sure that's right; can you double-check the numbers?",
    "Here's the result: 391.",
]

UNICODE = [
    "你好，世界！今天天气怎么样？",
    "请用中文回答：什么是机器学习？",
    "東京の天気を教えてください。",
    "안녕하세요, 반갑습니다.",
    "Ça va très bien, merci ! Voilà le café crème pour Zoë.",
    "Ångström, naïve, façade, jalapeño, Straße, smørrebrød.",
    "مرحبا بالعالم، كيف حالك اليوم؟",
    "שלום עולם! מה שלומך?",
    "Привет, как дела? Всё хорошо.",
    "Γειά σου Κόσμε — αλφα βήτα.",
    "Emoji time 🎉🚀👍🏽 and a family 👨‍👩‍👧‍👦 and a flag 🇯🇵.",
    "Math: ∀x ∈ ℝ, x² ≥ 0; ∑ᵢ aᵢ ≈ ∞ ≠ ∅.",
    "Zero-width joiner\u200dand non-breaking\u00a0space and BOM-like \ufeff char.",
    "Combining marks: e\u0301 vs \u00e9, and a surrogate-pair char 𝄞.",
    "Line\u2028separator and paragraph\u2029separator and NEL\u0085here.",
    "हिन्दी में जवाब दीजिए।",
    "ไทย ภาษา ทดสอบ",
]

SPECIAL = [
    'He said "hello" and she said \'goodbye\'.',
    "A Windows path: C:\\Users\\bob\\Documents\\new_file.txt and a regex \\d+\\.\\d*",
    "Literal escapes: \\n \\t \\\" \\\\ \\u0041",
    "JSON inside text: {\"key\": [1, 2, {\"nested\": null}], \"ok\": true}",
    "Jinja-looking text: {{ messages }} and {% if x %}y{% endif %} and {# comment #}",
    "Braces {} and {{}} and }}{{ and %} {% and #} {#",
    "  leading and trailing spaces  ",
    "\n\nstarts with blank lines",
    "ends with newlines\n\n",
    "\ttabbed\ttext\t",
    "line one\nline two\r\nline three\rline four",
    "Markdown:\n\n```python\ndef f(x):\n    return x * 2  # doubles\n```\n\n- item 1\n- item 2\n",
    "HTML <b>bold</b> & <script>alert('x')</script> &amp; &lt;",
    "Percent signs: 100% sure, %s %d %(name)s {0} {name}",
    "   ",
    "",
]

MARKERS = [
    "<think>\nI should compute this carefully.\n</think>\n\nThe result is 12.",
    "<think>short</think>Answer without newline.",
    "Some text with a stray </think> closing tag.",
    "Please answer briefly /no_think",
    "/think Let's reason step by step.",
    "Tokens in text: <|im_start|>user <|im_end|> [INST] [/INST] <s></s> <|eot_id|>",
    "Harmony-like text: <|start|>assistant<|channel|>final<|message|>hi<|end|>",
    "<tool_response>\nfake tool output in a user message\n</tool_response>",
]

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua the quick brown fox jumps over lazy dog "
         "données naïve 数据 模型 テスト 🚀 \"quoted\" back\\slash {brace} tab\t").split(" ")


def long_text(rng):
    target = rng.randint(2000, 5000)
    parts = []
    size = 0
    while size < target:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 18)))
        sentence = sentence[:1].upper() + sentence[1:] + rng.choice([".", "?", "!", ";", ":"])
        if rng.random() < 0.2:
            sentence += "\n\n" if rng.random() < 0.5 else "\n"
        else:
            sentence += " "
        parts.append(sentence)
        size += len(sentence.encode("utf-8"))
    return "".join(parts)


def text(rng, allow_long=True, allow_markers=False):
    r = rng.random()
    if allow_long and r < 0.04:
        return long_text(rng)
    if allow_markers and r < 0.09:
        return rng.choice(MARKERS)
    r = rng.random()
    if r < 0.50:
        s = rng.choice(PLAIN)
    elif r < 0.72:
        s = rng.choice(UNICODE)
    else:
        s = rng.choice(SPECIAL)
    if rng.random() < 0.2:  # a second sentence, joined by a space or newlines
        s = s + rng.choice([" ", "\n", "\n\n"]) + rng.choice(PLAIN + UNICODE)
    return s


def nonempty_text(rng, **kw):
    s = text(rng, **kw)
    return s if s.strip() else rng.choice(PLAIN)


# ---------------------------------------------------------------------------------------------
# Tools: OpenAI function tools, and argument objects that fit their schemas

TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather",
        "description": "Get the current weather for a location.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City and country, e.g. Paris, France"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"],
                         "description": "Temperature unit"},
            },
            "required": ["location"],
        }}},
    {"type": "function", "function": {
        "name": "search_web",
        "description": "Search the web and return the top results.\nUse for recent events.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The search query"},
                "max_results": {"type": "integer", "description": "How many results", "minimum": 1,
                                "maximum": 50, "default": 5},
                "safe_search": {"type": "boolean", "default": True},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "strict": True}},
    {"type": "function", "function": {
        "name": "book_flight",
        "description": "Book a flight for one or more passengers.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code of the departure airport"},
                "destination": {"type": "string", "description": "IATA code of the arrival airport"},
                "date": {"type": "string", "format": "date", "description": "Departure date (YYYY-MM-DD)"},
                "passengers": {
                    "type": "array",
                    "description": "Travellers",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "age": {"type": "integer"},
                            "seat": {"type": "string", "enum": ["window", "aisle", "middle"]},
                        },
                        "required": ["name"],
                    },
                },
                "class": {"type": "string", "enum": ["economy", "premium", "business", "first"]},
                "max_price": {"type": ["number", "null"], "description": "Upper bound in EUR"},
            },
            "required": ["origin", "destination", "date", "passengers"],
        }}},
    {"type": "function", "function": {
        "name": "run_python",
        "description": "Execute Python code in a sandbox and return stdout.",
        "parameters": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Source code to run"},
                "timeout": {"type": "number", "description": "Seconds before the run is killed"},
            },
            "required": ["code"],
        }}},
    {"type": "function", "function": {
        "name": "set_thermostat",
        "description": "Set the target temperature of a room.",
        "parameters": {
            "type": "object",
            "properties": {
                "room": {"type": "string", "enum": ["living room", "bedroom", "kitchen", "büro"]},
                "temperature": {"type": "number", "description": "Target °C"},
                "schedule": {
                    "type": "object",
                    "description": "Optional schedule",
                    "properties": {
                        "start": {"type": "string", "description": "HH:MM"},
                        "end": {"type": "string", "description": "HH:MM"},
                        "days": {"type": "array", "items": {"type": "string",
                                 "enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]}},
                    },
                    "required": ["start"],
                },
            },
            "required": ["room", "temperature"],
        }}},
    {"type": "function", "function": {
        "name": "get_current_time",
        "description": "Return the current time. Takes no arguments.",
        "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "create_calendar_event",
        "description": "Create an event in the user's calendar (\"primary\" by default).",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "Event title"},
                "start": {"type": "string", "description": "ISO 8601 start time"},
                "duration_minutes": {"type": "integer", "description": "Length in minutes"},
                "attendees": {"type": "array", "items": {"type": "string", "format": "email"}},
                "reminders": {
                    "type": "array",
                    "items": {"type": "object", "properties": {
                        "method": {"type": "string", "enum": ["email", "popup"]},
                        "minutes": {"type": "integer"}}},
                },
                "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["title", "start"],
        }}},
    {"type": "function", "function": {
        "name": "compute_stats",
        "description": "Compute statistics over a list of numbers.",
        "parameters": {
            "type": "object",
            "properties": {
                "values": {"type": "array", "items": {"type": "number"},
                           "description": "Numbers (may be negative or tiny)"},
                "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                "metrics": {"type": "array", "items": {"type": "string",
                            "enum": ["mean", "median", "std", "min", "max"]}},
                "precision": {"type": "integer", "default": 2},
                "weights": {"anyOf": [{"type": "array", "items": {"type": "number"}},
                                      {"type": "null"}]},
            },
            "required": ["values"],
        }}},
    {"type": "function", "function": {
        "name": "lookup_user",
        "description": "",
        "parameters": {
            "type": "object",
            "properties": {
                "user_id": {"type": "integer"},
                "include": {"type": "object", "properties": {
                    "email": {"type": "boolean"}, "orders": {"type": "boolean"},
                    "address": {"type": "object", "properties": {
                        "street": {"type": "string"}, "zip": {"type": "string"}}}}},
            },
            "required": ["user_id"],
        }}},
    {"type": "function", "function": {
        "name": "listOrders",
        "description": "List a customer's orders. Parameter names are camelCase, as many APIs have them.",
        "parameters": {
            "type": "object",
            "properties": {
                "customerId": {"type": "string", "description": "Customer ID"},
                "URL": {"type": "string", "description": "Callback URL"},
                "maxResults": {"type": "integer", "default": 20},
                "Status": {"type": "string", "enum": ["open", "shipped", "Cancelled"]},
                "_cursor": {"type": ["string", "null"]},
                "zone2": {"type": "string"},
                "Zone": {"type": "string"},
                "älter": {"type": "boolean", "description": "Include orders older than a year"},
            },
            "required": ["customerId"],
        }}},
    {"type": "function", "function": {
        "name": "translate",
        "description": "Translate text. Handles 中文, العربية and emoji 🎌.",
        "parameters": {
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "Text to translate"},
                "target_lang": {"type": "string", "description": "ISO 639-1 code"},
                "formality": {"type": "string", "enum": ["formal", "informal"], "nullable": True},
            },
            "required": ["text", "target_lang"],
        }}},
]

# Values chosen to exercise JSON number and string rendering: ints of every size, floats whose
# shortest repr differs in form (0.1, 1e-07, 2.0, 1e+21, 1.5e-10), negatives, zero, -0.0.
NUMBERS = [0, 1, -1, 7, 42, -273, 1000000, 2147483647, -2147483648, 9007199254740993,
           9223372036854775807, -9223372036854775808, 0.1, 0.5, 2.0, -3.75, 1e-07, 1.5e-10,
           1e+21, 123456789.125, 3.141592653589793, -0.0, 100.0, 6.02214076e+23, 0.30000000000000004]


def random_number(rng, integer=False):
    if integer:
        return rng.choice([n for n in NUMBERS if isinstance(n, int)])
    return rng.choice(NUMBERS)


def value_for(schema, rng, depth=0):
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "anyOf" in schema:
        return value_for(rng.choice(schema["anyOf"]), rng, depth)
    t = schema.get("type", "string")
    if isinstance(t, list):
        t = rng.choice(t)
    if t == "null":
        return None
    if t == "string":
        return text(rng, allow_long=depth == 0 and rng.random() < 0.3)
    if t == "integer":
        return random_number(rng, integer=True)
    if t == "number":
        return random_number(rng)
    if t == "boolean":
        return rng.random() < 0.5
    if t == "array":
        items = schema.get("items", {"type": "string"})
        return [value_for(items, rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if t == "object":
        props = schema.get("properties")
        if props is None:  # free-form map
            extra = schema.get("additionalProperties", {"type": "string"})
            return {rng.choice(["a", "b", "ключ", "clé", "k e y", "x\"y"]) + str(i):
                    value_for(extra if isinstance(extra, dict) else {"type": "string"}, rng, depth + 1)
                    for i in range(rng.randint(0, 3))}
        required = set(schema.get("required", []))
        out = {}
        for name, sub in props.items():
            if name in required or rng.random() < 0.5:
                out[name] = value_for(sub, rng, depth + 1)
        return out
    return None


def arguments_for(tool, rng):
    args = value_for(tool["function"]["parameters"], rng)
    if rng.random() < 0.08:  # an extra argument not in the schema, of an odd shape
        args[rng.choice(["extra", "options", "nested"])] = rng.choice([
            None, True, False, [], {}, [[1, 2], [3, [4, 5]]], {"a": {"b": {"c": [None, 1.0]}}},
            [1, "two", 3.0, None, False],
        ])
    return args


def arguments_string(args, rng):
    r = rng.random()
    if r < 0.6:
        return json.dumps(args, ensure_ascii=False)
    if r < 0.85:
        return json.dumps(args, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(args)  # \uXXXX escapes, as some clients send


def call_id(rng):
    alphabet = string.ascii_letters + string.digits
    return "call_" + "".join(rng.choice(alphabet) for _ in range(24))


# ---------------------------------------------------------------------------------------------
# Messages

def user_message(rng, parts_style):
    # A client either sends every user message as a list of parts or none: about 10% of the
    # conversations (hence about 10% of user messages) use parts.
    if parts_style:
        parts = [{"type": "text", "text": nonempty_text(rng, allow_markers=True)}
                 for _ in range(rng.randint(1, 3))]
        m = {"role": "user", "content": parts}
    else:
        m = {"role": "user", "content": nonempty_text(rng, allow_markers=True)}
    if rng.random() < 0.03:
        m["name"] = rng.choice(["alice", "bob_42"])
    return m


def assistant_text(rng, reasoning):
    m = {"role": "assistant", "content": nonempty_text(rng, allow_markers=True)}
    if reasoning and rng.random() < 0.8:
        m["reasoning_content"] = text(rng)
    return m


def assistant_tool_calls(rng, tools, reasoning, with_content):
    calls = []
    for _ in range(rng.choices([1, 2, 3], weights=[65, 25, 10])[0]):
        tool = rng.choice(tools)
        calls.append({"id": call_id(rng), "type": "function",
                      "function": {"name": tool["function"]["name"],
                                   "arguments": arguments_string(arguments_for(tool, rng), rng)}})
    m = {"role": "assistant"}
    if with_content:
        m["content"] = nonempty_text(rng, allow_long=False)
    else:
        r = rng.random()
        if r < 0.55:
            m["content"] = None  # as the OpenAI API returns it
        elif r < 0.85:
            m["content"] = ""  # as many clients send it
        # else: no content key at all (an SDK message dumped with exclude_none)
    m["tool_calls"] = calls
    if reasoning and rng.random() < 0.8:
        m["reasoning_content"] = text(rng, allow_long=False)
    return m


TOOL_RESULTS = [
    lambda rng: json.dumps({"temperature": random_number(rng), "unit": "celsius",
                            "conditions": rng.choice(["sunny", "rain", "多云", "neige ❄️"])},
                           ensure_ascii=False),
    lambda rng: json.dumps({"results": [{"title": text(rng, allow_long=False),
                                         "url": "https://example.com/a?b=1&c=2"}
                                        for _ in range(rng.randint(0, 3))]}, ensure_ascii=False),
    lambda rng: json.dumps({"ok": rng.random() < 0.5, "error": None, "value": random_number(rng)}),
    lambda rng: text(rng),
    lambda rng: "Traceback (most recent call last):\n  File \"<stdin>\", line 1\nZeroDivisionError: division by zero\n",
    lambda rng: "",
    lambda rng: json.dumps([1, 2.5, -3, None, True, "x", [], {}]),
    lambda rng: rng.choice(PLAIN + UNICODE + SPECIAL),
]


def tool_messages(rng, assistant):
    out = []
    for call in assistant["tool_calls"]:
        m = {"role": "tool", "tool_call_id": call["id"], "content": rng.choice(TOOL_RESULTS)(rng)}
        if rng.random() < 0.35:
            m["name"] = call["function"]["name"]
        out.append(m)
    return out


def system_message(rng):
    r = rng.random()
    if r < 0.55:
        content = rng.choice([
            "You are a helpful assistant.",
            "You are a concise assistant. Answer in one sentence.",
            "Tu es un assistant serviable. Réponds en français.",
            "你是一个乐于助人的助手。",
            "You are a helpful assistant.\n\nRules:\n1. Be honest.\n2. Cite sources with [n].\n",
            "You can call tools. Prefer tools over guessing. /no_think",
        ])
    else:
        content = nonempty_text(rng, allow_markers=True)
    return {"role": "system", "content": content}


def conversation(rng):
    conv = {}
    kind = rng.random()
    has_tools = rng.random() < 0.5
    tools = rng.sample(TOOLS, rng.randint(1, 4)) if has_tools else None
    if tools is not None:
        conv["tools"] = tools
    reasoning = rng.random() < 0.3
    parts_style = rng.random() < 0.10

    if kind < 0.05:  # degenerate: no messages, or only a system message
        messages = [system_message(rng)] if rng.random() < 0.5 else []
        return {"messages": messages, **conv, "add_generation_prompt": rng.random() < 0.6}

    end_with_bare_calls = kind < 0.10  # ends with an assistant tool-call message without content
    add_generation_prompt = (not end_with_bare_calls) and rng.random() < 0.6 / 0.95
    # tool calls in the history: mostly when tools are declared, sometimes without (clients do
    # send histories with tool calls and no tools)
    call_tools = tools if tools is not None else (rng.sample(TOOLS, 2) if rng.random() < 0.15 else None)
    if end_with_bare_calls and call_tools is None:
        call_tools = rng.sample(TOOLS, 2)

    messages = []
    if rng.random() < 0.55:
        messages.append(system_message(rng))
    turns = rng.randint(1, 6)
    for turn in range(turns):
        last = turn == turns - 1
        messages.append(user_message(rng, parts_style))
        if last and end_with_bare_calls:
            messages.append(assistant_tool_calls(rng, call_tools, reasoning, with_content=False))
            break
        if last and add_generation_prompt:
            # end on the user message, or on tool results after a tool-call round
            if call_tools is not None and rng.random() < 0.4:
                a = assistant_tool_calls(rng, call_tools, reasoning, with_content=rng.random() < 0.3)
                messages.append(a)
                messages.extend(tool_messages(rng, a))
            break
        # a complete exchange: optional tool-call rounds, then a text answer
        if call_tools is not None and rng.random() < 0.45:
            for _ in range(rng.choices([1, 2], weights=[80, 20])[0]):
                a = assistant_tool_calls(rng, call_tools, reasoning, with_content=rng.random() < 0.3)
                messages.append(a)
                messages.extend(tool_messages(rng, a))
        messages.append(assistant_text(rng, reasoning))
    conv = {"messages": messages, **conv, "add_generation_prompt": add_generation_prompt}
    if rng.random() < 0.1:
        conv["chat_template_kwargs"] = {"enable_thinking": rng.random() < 0.5}
    return conv


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.strip().splitlines()[-1] + "\n")
        return 2
    n, seed = int(argv[1]), int(argv[2])
    rng = random.Random(seed)
    # Prefill requests: a quarter of the lines that end with an assistant message and ask no
    # generation prompt continue it (transformers' continue_final_message). Their own stream
    # of numbers, so the conversations are those of the seed without it.
    prefill = random.Random(seed + 1000003)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    for _ in range(n):
        conv = conversation(rng)
        msgs = conv["messages"]
        if (prefill.random() < 0.25 and msgs and msgs[-1].get("role") == "assistant"
                and not conv["add_generation_prompt"]):
            conv["continue_final_message"] = True
        out.write(json.dumps(conv, ensure_ascii=False) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
