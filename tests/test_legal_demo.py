"""The shipped demo adapter on the real default model: it makes a difference one can measure,
and the original legal service's flow (legal preset, the adapter, beam search, at most 200
characters) works through the API and through the page."""

from __future__ import annotations

import json
import threading

from tests.helpers import parse_sse, post_json, tokenizer_of, user
from tests.pages import open_page, record_chat_bodies, send, wait_reply
from training.legal_data import DATA, follows_form

HELDOUT = [json.loads(line)["question"] for line in open(DATA / "legal_heldout.jsonl", encoding="utf-8")]


# The base model's answers are read only as far as their first line: an answer in the form
# begins "结论：", and one whose beginning is not that is out of the form however it goes on.
BASE_TOKENS = 24


def answers(engine, *adapters):
    """Greedy answers to every held-out question under each adapter (None: the base model,
    its first ``BASE_TOKENS`` tokens), all submitted at once: the engine batches them, base
    and adapter rows together."""
    from api.types import SamplingParams

    out: dict[tuple, str] = {}

    def one(adapter, i, q):
        limit = 120 if adapter else BASE_TOKENS
        ids = tokenizer_of(engine).build_prompt([user(q)], system=None, max_new_tokens=limit,
                                                max_turns=None).ids
        params = SamplingParams(max_new_tokens=limit)
        out[adapter, i] = "".join(c.text for c in engine.submit(ids, params, adapter))

    threads = [threading.Thread(target=one, args=(a, i, q))
               for a in adapters for i, q in enumerate(HELDOUT)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return [[out[a, i] for i in range(len(HELDOUT))] for a in adapters]


def may_follow_form(beginning: str) -> bool:
    """Whether an answer that begins so could still be in the form (its first line "结论："):
    counting these bounds the base model's form rate from above."""
    first = next((line.strip() for line in beginning.splitlines() if line.strip()), "")
    return first.startswith("结论：") or "结论：".startswith(first)


def test_may_follow_form_bounds_follows_form():
    for answer in ["结论：可以。\n依据：法条。\n本回答仅供参考", "\n\n结论：是", "结", "", "  \n",
                   "我认为可以", "结果：不行", "Yes"]:
        assert may_follow_form(answer) or not follows_form(answer), answer
        assert all(may_follow_form(answer[:n]) for n in range(len(answer))) or not follows_form(answer)
    assert not may_follow_form("我认为可以") and not may_follow_form("结果：不行")


def test_the_adapter_answers_held_out_questions_in_the_trained_form(legal_live):
    engine = legal_live.app.extensions["engine"]
    assert "legal-demo" in engine.adapters
    tuned, base = answers(engine, "legal-demo", None)
    with_adapter, without = [follows_form(a) for a in tuned], [may_follow_form(a) for a in base]
    rate_with, rate_without = sum(with_adapter) / len(HELDOUT), sum(without) / len(HELDOUT)
    print(f"trained form on {len(HELDOUT)} held-out questions: with the adapter "
          f"{rate_with:.0%}, without at most {rate_without:.0%}")
    assert rate_with >= 0.8 and rate_without <= 0.1


def test_the_legal_preset_and_the_adapter_shape_the_request_over_the_api(legal_live):
    """What the legal flow sends the model, as the API shows it (the reply itself is generated
    once, in the page test below: a 4-beam search of up to 200 tokens)."""
    body = {"messages": [user("租房合同到期了，房东一直不退押金，我该怎么办？")], "template": "legal",
            "adapter": "legal-demo"}
    preview = json.load(post_json(legal_live.url + "/api/chat/preview", body))
    assert "资深法律专家" in preview["prompt"] and preview["max_new_tokens"] == 200


def test_legal_flow_in_the_page_with_the_adapter_picked_in_settings(browser, legal_live):
    context = browser.new_context()
    context.set_default_timeout(180_000)  # a 4-beam search of up to 200 tokens on 2 CPU cores
    page = open_page(context, legal_live.url)
    page.click("#toggle-settings")
    page.select_option("#set-template", "legal")
    page.select_option("#set-adapter", "legal-demo")
    bodies = []
    record_chat_bodies(page, bodies)
    with page.expect_response(lambda r: r.url.endswith("/api/chat")) as answered:
        send(page, "公司拖欠工资两个月了，我可以怎么维权？")
    wait_reply(page, 2)
    assert bodies[-1]["adapter"] == "legal-demo" and bodies[-1]["template"] == "legal"
    done = [data for name, data in parse_sse(answered.value.text()) if name == "done"]
    assert done and done[0]["model"] == "legal-demo"  # the API's answer: the adapter ran
    text = page.locator(".msg.assistant .body").first.inner_text().strip()
    assert 0 < len(text) <= 200, text
    assert done[0]["message"]["content"].split() == text.split()  # the page joins its lines
    print("legal flow answer:", text)
    assert page.errors == []
    context.close()
