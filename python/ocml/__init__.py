# SPDX-License-Identifier: Apache-2.0
"""ocml: exact chat markup for LLMs, from Python.

Render conversations (OpenAI chat form) into the prompt a model expects, as text or as token
IDs with training labels; parse what a model wrote back into messages, reasoning and tool
calls; stream-decode a completion into events or OpenAI chunks. Every call runs in ocml's
C++ core with the GIL released, so threads and the batch forms use every core.

    import ocml
    prompt = ocml.render([{"role": "user", "content": "Hi"}], format="qwen3",
                         add_generation_prompt=True, enable_thinking=False)
    reply = ocml.parse("<think>\\nhm\\n</think>\\n\\nHello!<|im_end|>", format="qwen3",
                       completion=True)
    tok = ocml.Tokenizer.from_file("tokenizer.json")
    ids = ocml.render_ids(messages, tok, format="model:path/to/model", training=True)
    ids["input_ids"], ids["labels"]   # NumPy int32 arrays

A format is a built-in dialect ("chatml", "qwen3", "harmony", "ocml-2.2", …: see
``ocml.dialects()``) or ``"model:PATH"``, a model folder (or its tokenizer_config.json) whose
own chat template renders and whose response template parses.

Errors raise ``ocml.Error`` subclasses (one per code, e.g. ``ocml.JsonInputError`` for
E-JSON-INPUT) carrying ``code``, ``offset``, ``line`` and ``column``; warnings go through
Python's ``warnings`` module as ``ocml.OcmlWarning``.
"""

from __future__ import annotations

import functools
import gc as _gc
import json as _json
import os
import warnings as _warnings
from typing import Any, Iterable, Mapping, Sequence, Union

from . import _ocml

__version__: str = _ocml.version

Tokenizer = _ocml.Tokenizer

# --- errors and warnings -----------------------------------------------------------------


class Error(Exception):
    """An ocml error: ``code`` ("E-JSON-INPUT"), ``offset`` (bytes into the input),
    ``line`` and ``column`` (1-based; line 0: no position), ``message``, and every
    ``diagnostics`` tuple the call reported."""

    code: str = ""

    def __init__(self, code: str, message: str, offset: int = 0, line: int = 0,
                 column: int = 0, diagnostics: Sequence[tuple] = ()) -> None:
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
        self.diagnostics = list(diagnostics)
        where = f" {line}:{column}" if line else ""
        super().__init__(f"{code}{where} {message}")


class OcmlWarning(UserWarning):
    """A warning from ocml (what was recovered from, or lost): ``code``, ``offset``,
    ``line``, ``column``, ``message``."""

    def __init__(self, code: str, message: str, offset: int = 0, line: int = 0,
                 column: int = 0) -> None:
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
        where = f" {line}:{column}" if line else ""
        super().__init__(f"{code}{where} {message}")


def _class_name(code: str) -> str:
    # "E-JSON-INPUT" -> "JsonInputError"
    return "".join(p.capitalize() for p in code[2:].split("-")) + "Error"


_ERRORS: dict[str, type[Error]] = {}
for _code in _ocml.error_names():
    _cls = type(_class_name(_code), (Error,), {"code": _code, "__module__": __name__})
    _ERRORS[_code] = _cls
    globals()[_cls.__name__] = _cls


def _error_of(diag: tuple, diagnostics: Sequence[tuple] = ()) -> Error:
    code, _level, offset, line, column, message = diag
    cls = _ERRORS.get(code, Error)
    return cls(code, message, offset, line, column, diagnostics)


def _report(diagnostics: Sequence[tuple], *, stacklevel: int = 3) -> None:
    """Raises the first error; warns for each warning."""
    for d in diagnostics:
        if d[1] == "error":
            raise _error_of(d, diagnostics)
    for code, _level, offset, line, column, message in diagnostics:
        _warnings.warn(OcmlWarning(code, message, offset, line, column), stacklevel=stacklevel)


# --- formats and requests ----------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _format_named(name: str) -> _ocml.Format:
    return _ocml.Format(name)


FormatLike = Union[str, "_ocml.Format"]


def Format(name: str) -> _ocml.Format:  # noqa: N802 (a class-like factory)
    """A dialect ("chatml", "gpt-oss", …) or "model:PATH". Formats are cached by name: a
    model folder is read once per process."""
    return _format_named(os.fspath(name) if not isinstance(name, str) else name)


def _format(f: FormatLike) -> _ocml.Format:
    if isinstance(f, _ocml.Format):
        return f
    if isinstance(f, str):
        return Format(f)
    raise TypeError(f"format must be a dialect name, 'model:PATH' or an ocml.Format, not {f!r}")


def _tokenizer(t: Union[str, os.PathLike, _ocml.Tokenizer]) -> _ocml.Tokenizer:
    if isinstance(t, _ocml.Tokenizer):
        return t
    return _tokenizer_at(os.fspath(t))


@functools.lru_cache(maxsize=16)
def _tokenizer_at(path: str) -> _ocml.Tokenizer:
    return _ocml.Tokenizer.from_file(path)


_REQUEST_KEYS = ("tools", "add_generation_prompt", "continue_final_message",
                 "chat_template_kwargs", "documents")


def _request(conversation: Any, options: Mapping[str, Any]) -> Union[str, bytes]:
    """The JSON request text: `conversation` is a list of messages, a request dict
    ({"messages": [...], "tools": [...], …}), or JSON text already. Keyword options use the
    names transformers and vLLM use; any other keyword is a template variable
    (chat_template_kwargs), as apply_chat_template passes them."""
    given = {k: v for k, v in options.items() if v is not None}
    if isinstance(conversation, (str, bytes)) and not given:
        return conversation  # JSON text as it is: the fast path of the batch forms
    if isinstance(conversation, (str, bytes)):
        conversation = _json.loads(conversation)
    if isinstance(conversation, Mapping):
        request = dict(conversation)
    elif isinstance(conversation, Sequence):
        request = {"messages": list(conversation)}
    else:
        raise TypeError("a conversation is a list of messages, a request dict or JSON text")
    kwargs = dict(request.get("chat_template_kwargs") or {})
    for key, value in given.items():
        if key in _REQUEST_KEYS and key != "chat_template_kwargs":
            request[key] = value
        elif key == "chat_template_kwargs":
            kwargs.update(value)
        else:
            kwargs[key] = value
    if kwargs:
        request["chat_template_kwargs"] = kwargs
    return _json.dumps(request, ensure_ascii=False)


def _now(now: Any) -> str:
    if now is None:
        return ""
    if hasattr(now, "strftime"):
        return now.strftime("%Y-%m-%dT%H:%M:%S")
    return str(now)


# --- render ------------------------------------------------------------------------------


def render(conversation: Any, *, format: FormatLike, tools: Any = None,
           add_generation_prompt: bool | None = None,
           continue_final_message: bool | None = None,
           chat_template_kwargs: Mapping[str, Any] | None = None, now: Any = None,
           **kwargs: Any) -> str:
    """The prompt text of `conversation` in `format`, as `apply_chat_template(tokenize=False)`
    renders it for a model format.

        ocml.render(messages, format="qwen3", add_generation_prompt=True,
                    enable_thinking=False)
    """
    request = _request(conversation, dict(tools=tools, add_generation_prompt=add_generation_prompt,
                                          continue_final_message=continue_final_message,
                                          chat_template_kwargs=chat_template_kwargs, **kwargs))
    text, diagnostics = _format(format).render_json(request, _now(now))
    _report(diagnostics)
    return text


def render_ids(conversation: Any, tokenizer: Any, *, format: FormatLike, training: bool = False,
               max_tokens: int = 0, last_turn_only: bool = False,
               train_trailing_newline: bool = False, strict: bool = False,
               policy: str = "harmony", turns: str = "automatic", truncate: str = "turns",
               tools: Any = None,
               add_generation_prompt: bool | None = None,
               continue_final_message: bool | None = None,
               chat_template_kwargs: Mapping[str, Any] | None = None, now: Any = None,
               **kwargs: Any) -> dict:
    """The prompt as token IDs: {"input_ids", "attention_mask"} (int32 arrays, as
    apply_chat_template(return_dict=True)) and, with training=True, "labels" (the IDs the
    model samples on each trained assistant turn, -100 elsewhere). With training, "examples"
    lists every example of the conversation (the first is the one at the top level): the
    `turns` policy ("automatic", "per-turn", "whole", "last", "keep-reasoning") trains a turn
    only where an example holds it as the model sampled it (docs/training.md). A sequence
    longer than `max_tokens` is cut as `truncate` says: "turns" drops the oldest user turns
    (the system prompt and tools stay; ocml.Error when the last turn alone is too long),
    "left" keeps the last max_tokens tokens, "right" the first.

        out = ocml.render_ids(messages, "tokenizer.json", format="chatml", training=True)
    """
    request = _request(conversation, dict(tools=tools, add_generation_prompt=add_generation_prompt,
                                          continue_final_message=continue_final_message,
                                          chat_template_kwargs=chat_template_kwargs, **kwargs))
    ids, mask, labels, diagnostics, more = _format(format).render_ids(
        request, _tokenizer(tokenizer), training, max_tokens, last_turn_only,
        train_trailing_newline, strict, policy, turns, truncate, _now(now))
    _report(diagnostics)
    return _ids_dict(ids, mask, labels, more)


def _ids_dict(ids: Any, mask: Any, labels: Any, more: Sequence[tuple] = ()) -> dict:
    out = {"input_ids": ids, "attention_mask": mask}
    if labels is not None:
        out["labels"] = labels
        out["examples"] = [dict(out)] + [
            {"input_ids": i, "attention_mask": m, "labels": l} for i, m, l in more]
    return out


def _batch_requests(conversations: Iterable[Any], options: Mapping[str, Any]) -> list:
    return [_request(c, options) for c in conversations]


def _batch_result(value: Any, diagnostics: Sequence[tuple], errors: str) -> Any:
    if errors == "return":
        for d in diagnostics:
            if d[1] == "error":
                return _error_of(d, diagnostics)
        _report(diagnostics, stacklevel=4)
        return value
    _report(diagnostics, stacklevel=4)
    return value


def _check_errors(errors: str) -> None:
    if errors not in ("raise", "return"):
        raise ValueError("errors must be 'raise' or 'return'")


def render_batch(conversations: Iterable[Any], *, format: FormatLike, jobs: int = 0,
                 errors: str = "raise", now: Any = None, **options: Any) -> list:
    """render() over many conversations on `jobs` threads (0: every core). Items may be
    JSON text (read as they are, fastest). errors="return" puts an ocml.Error in the place
    of an item that failed instead of raising; every other item is still rendered."""
    _check_errors(errors)
    requests = _batch_requests(conversations, options)
    texts, diagnostics = _format(format).render_batch(requests, _now(now), jobs)
    for i, diags in diagnostics.items():
        texts[i] = _batch_result(texts[i], diags, errors)
    return texts


def render_ids_batch(conversations: Iterable[Any], tokenizer: Any, *, format: FormatLike,
                     training: bool = False, max_tokens: int = 0, last_turn_only: bool = False,
                     train_trailing_newline: bool = False, strict: bool = False,
                     policy: str = "harmony", turns: str = "automatic",
                     truncate: str = "turns", jobs: int = 0,
                     errors: str = "raise",
                     now: Any = None, **options: Any) -> list:
    """render_ids() over many conversations on `jobs` threads: a list of
    {"input_ids", "labels"} dicts (or ocml.Error with errors="return")."""
    _check_errors(errors)
    requests = _batch_requests(conversations, options)
    results = _format(format).render_ids_batch(
        requests, _tokenizer(tokenizer), training, max_tokens, last_turn_only,
        train_trailing_newline, strict, policy, turns, truncate, _now(now), jobs)
    return [_batch_result(_ids_dict(ids, mask, labels, more), diags, errors)
            for ids, mask, labels, diags, more in results]


# --- parse -------------------------------------------------------------------------------


def parse(text_or_ids: Any, *, format: FormatLike, openai: bool = True, tokenizer: Any = None,
          lenient: bool = False, completion: bool = False, prefix: str = "",
          tools: Any = None, call_id_seed: int | None = None) -> dict:
    """Parses a transcript (or, with completion=True, a model's completion) into
    {"messages": [...]} in OpenAI form (`reasoning_content`, `tool_calls`), or ocml's
    native form with openai=False. Token IDs (a list or NumPy array) need `tokenizer`.
    A model format parses its output through its response template (`prefix`: the prompt
    it continues; `tools`: to type call arguments)."""
    f = _format(format)
    tools_json = "" if tools is None else _json.dumps(tools)
    if isinstance(text_or_ids, (str, bytes)):
        out, _ok, diagnostics = f.parse(text_or_ids, openai, lenient, completion, prefix,
                                        tools_json, call_id_seed)
    else:
        if tokenizer is None:
            raise TypeError("parsing token IDs needs tokenizer=")
        out, _ok, diagnostics = f.parse_ids(text_or_ids, _tokenizer(tokenizer), openai, lenient,
                                            completion, prefix, tools_json, call_id_seed)
    _report(diagnostics)
    return _loads(out)


def _loads(json_bytes: bytes) -> Any:
    """JSON text from the core: UTF-8, except bytes of the input that were not UTF-8 and
    that lenient parsing kept (carried losslessly as surrogate escapes)."""
    return _json.loads(json_bytes.decode("utf-8", "surrogateescape"))


def parse_batch(texts: Iterable[Any], *, format: FormatLike, openai: bool = True,
                lenient: bool = False, completion: bool = False,
                call_id_seed: int | None = None, jobs: int = 0,
                errors: str = "raise") -> list:
    """parse() over many texts on `jobs` threads (0: every core)."""
    _check_errors(errors)
    items = list(texts)
    array, diagnostics = _format(format).parse_batch(items, openai, lenient, completion,
                                                      call_id_seed, jobs)
    # Python's cycle collector would walk the heap again and again while a big batch's
    # dicts are made (json.loads makes no cycles): 20% of the call, measured.
    collecting = _gc.isenabled()
    _gc.disable()
    try:
        out = _loads(array)
    finally:
        if collecting:
            _gc.enable()
    for i, diags in diagnostics.items():
        out[i] = _batch_result(out[i], diags, errors)
    return out


# --- convert -----------------------------------------------------------------------------


def convert(text: Union[str, bytes], *, format: str, to: str, lenient: bool = False,
            strict: bool = False) -> str:
    """Markup in dialect `format` rewritten in dialect `to`. What `to` cannot hold is a
    warning (an error with strict=True)."""
    out, diagnostics = _ocml.convert(text, format, to, lenient, strict)
    _report(diagnostics)
    return out


# --- streaming ---------------------------------------------------------------------------


class Decoder:
    """A streaming decoder: push() bytes, text or token IDs as they arrive and get the
    events they complete; finish() at the end. Chunking never changes the events.

    events="events": a dialect's decoder events (as `ocml stream` writes them: "event",
    "span" [begin, end], …) or a model's response events ("type", "span", …);
    events="openai": OpenAI `chat.completion.chunk` objects.

        d = ocml.Decoder("qwen3", events="openai", completion=True)
        for piece in stream:
            for chunk in d.push(piece):
                send(chunk)
        for chunk in d.finish():
            send(chunk)
    """

    def __init__(self, format: FormatLike, *, events: str = "events", lenient: bool = False,
                 completion: bool = False, tokenizer: Any = None, prefix: str = "",
                 tools: Any = None, call_id_seed: int | None = None) -> None:
        tok = None if tokenizer is None else _tokenizer(tokenizer)
        self._d = _ocml.Decoder(_format(format), events, lenient, completion, tok, prefix,
                                "" if tools is None else _json.dumps(tools), call_id_seed)

    def push(self, data: Union[str, bytes, Sequence[int], Any]) -> list:
        """Feeds the next piece (str, bytes, or token IDs with a tokenizer)."""
        return _loads(self._d.push(data))

    def finish(self) -> list:
        """Ends the input; the last events (and, for OpenAI chunks, the finish_reason)."""
        return _loads(self._d.finish())


# --- templates ---------------------------------------------------------------------------


class _Loaded:
    """A template object of the core, made from text or read from a file."""

    _core: Any = None

    def __init__(self, text: str) -> None:
        self._t = self._core.from_text(text)

    @classmethod
    def from_file(cls, path: Union[str, os.PathLike]):
        """Reads the template from `path`."""
        t = cls.__new__(cls)
        t._t = cls._core.from_file(os.fsencode(path))  # bytes: any file name
        return t


class ChatTemplate(_Loaded):
    """A Jinja chat template, executed by ocml's engine exactly as transformers renders it
    (the same output as ``apply_chat_template(tokenize=False)``, without Python's Jinja2).

    ``ChatTemplate(text)`` takes template text or a tokenizer_config.json's text (its
    ``chat_template``, named ones included, and its special tokens);
    ``ChatTemplate.from_file(path)`` reads either. ``render`` takes the same arguments as
    ``ocml.render``; ``format()`` makes an ``ocml.Format`` of it (with a
    ``ResponseTemplate``, one that also parses) for every other call:

        t = ocml.ChatTemplate.from_file("tokenizer_config.json")
        prompt = t.render(messages, add_generation_prompt=True)
        f = t.format(ocml.ResponseTemplate.from_file("response.json"))
        ocml.parse(completion, format=f, completion=True)
    """

    _core = _ocml.ChatTemplate

    @property
    def special_tokens(self) -> dict:
        """The special tokens of the config (bos_token, eos_token, …), as the template
        sees them."""
        return _loads(self._t.special_tokens)

    def format(self, response_template: "ResponseTemplate | None" = None, *,
               stop: Sequence[str] = (), name: str = "template",
               curated: bool = True) -> _ocml.Format:
        """An ``ocml.Format`` that renders with this template and parses with
        `response_template` (none: the curated one the chat template's fingerprint matches,
        as ``model:PATH`` takes it, unless `curated` is false; else parse is an error;
        ``Format.response_source`` says which); stop strings are the config's eos token and
        `stop`."""
        response = None if response_template is None else response_template._t
        return _ocml.template_format(self._t, response, list(stop), name, curated)

    def render(self, conversation: Any, **options: Any) -> str:
        """``ocml.render(conversation, format=self.format(), **options)``."""
        return render(conversation, format=self._own_format(), **options)

    def render_variables(self, variables: Mapping[str, Any], *, tools: bool = False,
                         now: Any = None) -> str:
        """The template rendered with exactly `variables` (``messages``, ``tools``,
        ``add_generation_prompt``, any other name), nothing added: Jinja's
        ``template.render(**variables)``. `tools` picks a config's "tool_use" template."""
        return self._t.render_variables(_json.dumps(variables), tools, _now(now))

    def _own_format(self) -> _ocml.Format:
        f = getattr(self, "_f", None)
        if f is None:
            f = self._f = self.format()
        return f


class ResponseTemplate(_Loaded):
    """A response template (transformers' ``response_template`` form): how a model's output
    becomes a message. ``ResponseTemplate(spec)`` takes the spec as a dict or JSON text (a
    tokenizer_config.json's ``response_template`` key is found too);
    ``ResponseTemplate.from_file(path)`` reads one.

        r = ocml.ResponseTemplate.from_file("response.json")
        r.parse("<think>hm</think>Hello")   # {"role": "assistant", "content": …}
    """

    _core = _ocml.ResponseTemplate

    def __init__(self, spec: Union[str, Mapping[str, Any]]) -> None:
        super().__init__(spec if isinstance(spec, str) else _json.dumps(spec))

    @property
    def fields(self) -> list:
        """The fields the template can fill (content, reasoning_content, tool_calls, …)."""
        return self._t.fields

    def parse(self, text: Union[str, bytes], *, prefix: str = "", tools: Any = None,
              lenient: bool = False, openai: bool = True,
              call_id_seed: int | None = None) -> dict:
        """The message of a model's output: OpenAI form (``tool_calls`` with ids,
        ``arguments`` as JSON text), or the template's own fields with openai=False.
        `prefix`: the prompt the output continues; `tools`: to type call arguments."""
        out, diagnostics = self._t.parse(text, prefix, "" if tools is None else
                                         _json.dumps(tools), lenient, openai, call_id_seed)
        _report(diagnostics)
        return _loads(out)


# --- the registry ------------------------------------------------------------------------


def dialects() -> list:
    """The built-in dialects: name, summary, aliases, control tokens, stop strings."""
    return _ocml.dialects()


__all__ = [
    "ChatTemplate", "Decoder", "ResponseTemplate", "Error", "Format", "OcmlWarning", "Tokenizer", "convert", "dialects", "parse",
    "parse_batch", "render", "render_batch", "render_ids", "render_ids_batch",
] + sorted(c.__name__ for c in _ERRORS.values())
