#!/usr/bin/env python3
# llmjson: a generated JSON Lines dataset of model outputs, for the batch recipes' tests and figures
# SPDX-License-Identifier: MIT
"""Writes LINES lines of varied model outputs as JSON Lines, the same bytes for the same seed.

    make_dataset.py [--kind plain|batch] [--lines N] [--pad BYTES] [--seed S] [--no-final-lf] OUT

plain: each line is a JSON string, one model output. batch: each line is an OpenAI Batch API
output object; the output is at /response/body/choices/0/message/content, the id at /custom_id,
some have reasoning at /response/body/choices/0/message/reasoning_content.
The outputs: bare answers, answers after reasoning (<think>...</think> holding drafts), fenced
answers among prose, arrays, Unicode and escapes; about 3% without any JSON or with a broken
answer (error lines), about 2% not valid input (not JSON, a number, an empty line, a missing or
null field in the batch kind: `input` errors), some CRLF line ends and a few lines of 40 KB or
more. --pad BYTES lengthens each output with prose or reasoning to about BYTES.
"""

import argparse
import json
import random

WORDS = ("the model considered the request and the schema before writing its answer while "
         "checking each field against the user's constraints and the previous turns").split()
NAMES = ["Ada", "Grace", "Émile", "Zoë", "Søren", "李雷", "Дмитрий", "O'Brien", "\"quoted\"",
         "back\\slash", "tab\there", "emoji 🎉"]


def prose(rng, words):
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def answer(rng, i):
    shape = rng.randrange(4)
    if shape == 0:
        return {"id": i, "name": rng.choice(NAMES), "score": round(rng.uniform(-1e3, 1e3), 3)}
    if shape == 1:
        return [rng.randrange(-10**9, 10**9) for _ in range(rng.randrange(0, 6))]
    if shape == 2:
        return {"user": {"name": rng.choice(NAMES), "tags": [prose(rng, 2) for _ in range(2)]},
                "ok": rng.random() < 0.5, "ratio": 1.5e-7, "none": None}
    return {"text": prose(rng, 8) + "\nsecond line", "n": i}


def model_output(rng, i, pad):
    """One model output (a str) and whether it has an answer."""
    text = json.dumps(answer(rng, i), ensure_ascii=rng.random() < 0.3,
                      indent=rng.choice([None, None, 2]))
    filler = prose(rng, max(1, pad // 7)) if pad else ""
    r = rng.random()
    if r < 0.015:
        return prose(rng, 12) + " " + filler + " I cannot produce that as JSON.", False
    if r < 0.03:
        return "Here it is: " + text[: max(1, len(text) // 2)], False  # cut short
    style = rng.randrange(5)
    if style == 0:
        return text + ("\n" + filler if filler else ""), True
    if style == 1:
        draft = json.dumps({"draft": i, "maybe": [1, 2]})
        return "<think>%s %s %s</think>\n%s" % (prose(rng, 6), draft, filler, text), True
    if style == 2:
        return "%s\n```json\n%s\n```\n%s" % (prose(rng, 5), text, filler), True
    if style == 3:
        return "Sure. The answer is %s, as requested. %s" % (text, filler), True
    return "%s\n\n%s\n\n%s" % (filler, text, prose(rng, 4)), True


def batch_line(rng, i, output, reasoning):
    message = {"role": "assistant", "content": output}
    if reasoning:
        message["reasoning_content"] = reasoning
    return {"id": "batch_req_%06d" % i, "custom_id": "request-%d" % i,
            "response": {"status_code": 200, "request_id": "req_%x" % rng.getrandbits(48),
                         "body": {"id": "chatcmpl-%d" % i, "object": "chat.completion",
                                  "choices": [{"index": 0, "message": message,
                                               "finish_reason": "stop"}]}},
            "error": None}


def line(rng, i, kind, pad, valid=False):
    """One input line (bytes, with its line end); `valid`: one with an output to extract."""
    end = b"\r\n" if rng.random() < 0.05 else b"\n"
    r = rng.random()
    if r < 0.02 and not valid:  # not valid input
        if kind == "plain":
            bad = [b"not json at all", b"42", b"", b'"unterminated', b'{"content": "x"}']
        else:
            bad = [b"not json at all", b"[]", b"",
                   json.dumps({"id": "batch_req_%06d" % i, "custom_id": "request-%d" % i,
                               "response": None, "error": {"code": "server_error",
                                                           "message": "boom"}}).encode(),
                   json.dumps(batch_line(rng, i, None, None)).encode()]
        return rng.choice(bad) + end
    big = rng.random() < 0.002
    output, _ = model_output(rng, i, 40000 if big else pad)
    if kind == "plain":
        return json.dumps(output, ensure_ascii=rng.random() < 0.5).encode() + end
    reasoning = prose(rng, 10) + ' {"draft": true}' if rng.random() < 0.2 else None
    return json.dumps(batch_line(rng, i, output, reasoning), ensure_ascii=False).encode() + end


def generate(path, lines, kind="plain", pad=0, seed=20, final_lf=True):
    rng = random.Random(seed)
    with open(path, "wb") as f:
        for i in range(1, lines + 1):
            last_without_lf = i == lines and not final_lf
            data = line(rng, i, kind, pad, valid=last_without_lf)
            if last_without_lf:
                data = data.rstrip(b"\r\n")
            f.write(data)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out")
    p.add_argument("--kind", choices=["plain", "batch"], default="plain")
    p.add_argument("--lines", type=int, default=3000)
    p.add_argument("--pad", type=int, default=0)
    p.add_argument("--seed", type=int, default=20)
    p.add_argument("--no-final-lf", action="store_true")
    a = p.parse_args()
    generate(a.out, a.lines, a.kind, a.pad, a.seed, not a.no_final_lf)


if __name__ == "__main__":
    main()
