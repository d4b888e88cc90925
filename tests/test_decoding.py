"""Streaming text pieces never split a character, and stop strings are caught across pieces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.engine.decoding import IncrementalDecoder, StopMatcher

SAMPLES = ["北京是中国的首都，有着三千多年的历史。", "Emoji 🎉🙂👩‍💻 mixed with 中文 and English.",
           "日本語のテキストも大丈夫です。", "Ünïcödé àccents ☕ and ∑ math"]


def test_deltas_never_contain_partial_characters(tokenizer):
    for text in SAMPLES:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        decoder = IncrementalDecoder(tokenizer)
        pieces = [decoder.push(i) for i in ids]
        assert all("\ufffd" not in p for p in pieces)
        assert "".join(pieces) == text
        # Byte-level BPE splits these characters over several tokens: the test is not vacuous.
        assert len(ids) > len([p for p in pieces if p])


@given(st.text(min_size=1, max_size=40), st.lists(st.integers(1, 8), min_size=1, max_size=10),
       st.text(min_size=1, max_size=4))
@settings(max_examples=200)
def test_stop_matcher_finds_stops_across_pieces(text, cuts, stop):
    pieces, pos = [], 0
    for c in cuts:
        pieces.append(text[pos:pos + c])
        pos += c
    pieces.append(text[pos:])
    matcher = StopMatcher((stop,))
    out, hit = "", False
    for piece in pieces:
        emitted, hit = matcher.push(piece)
        out += emitted
        if hit:
            break
    if not hit:
        out += matcher.flush()
    if stop in text:
        assert hit and out == text[:text.index(stop)]
    else:
        assert not hit and out == text


def test_sampler_survives_extreme_parameters():
    """schemathesis found these: 1e-38 as temperature made softmax NaN and the model 'fail'."""
    import torch

    from api.engine.sampling import RowSampler, sample
    from api.types import SamplingParams

    logits = torch.tensor([[1.0, 3.0, 2.0, -1.0]])
    cpu = torch.device("cpu")
    tiny_t = RowSampler(SamplingParams(do_sample=True, temperature=1.175494351e-38, seed=0), cpu)
    assert sample(logits, [tiny_t], [[0]]) == [1]  # effectively greedy
    # A vanishing repetition penalty sends the positive scores of seen tokens to +inf: the
    # choice is among them, never a crash.
    tiny_p = RowSampler(SamplingParams(do_sample=True, repetition_penalty=1e-300, seed=0), cpu)
    assert {sample(logits.clone(), [tiny_p], [[0, 2]])[0] for _ in range(20)} <= {0, 2}


def test_a_beam_reply_cut_inside_a_character_ends_before_it_as_a_stream_does(tokenizer):
    """A beam search sends its best hypothesis whole; cut by max_new_tokens inside a
    character, it ends before that character, as a stream of the same ids would."""
    import torch

    from api.engine.output import Output
    from api.engine.request import GenRequest, Handle, Sequence
    from api.types import SamplingParams

    eos = frozenset({tokenizer.eos_token_id})
    for text in SAMPLES:
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        cuts = [n for n in range(1, len(ids)) if tokenizer.decode(ids[:n]).endswith("\ufffd")]
        assert cuts  # byte-level BPE splits these characters: some cuts fall inside one
        for n in cuts:
            params = SamplingParams(max_new_tokens=n, num_beams=2)
            seq = Sequence.of(Handle(GenRequest([1, 2, 3], params), 60), 0, tokenizer,
                              torch.device("cpu"), eos, 2048)
            seq.beams.finished[0] = ids[:n]
            Output(tokenizer, eos, 2048, release=lambda handle: None).beams_done(seq)
            chunks = list(seq.handle)
            reply = "".join(c.text for c in chunks)
            assert "\ufffd" not in reply and text.startswith(reply)
            # held back: the cut character, and a space its first token carries with it
            whole = tokenizer.decode(ids[:n]).rstrip("\ufffd")
            assert whole.startswith(reply) and len(whole) - len(reply) <= 1
            assert chunks[-1].finish_reason == "length"
            assert chunks[-1].usage.completion_tokens == n


def test_presence_and_frequency_penalties_count_the_reply_only():
    """Prompt 4 4 9, reply 7 7 8: 7 loses the presence penalty and twice the frequency one, 8
    each once; 4 and 9 (the prompt's) and every other token keep their scores."""
    import torch

    from api.engine.sampling import history_processors
    from api.types import SamplingParams

    procs = history_processors(SamplingParams(presence_penalty=0.5, frequency_penalty=0.25),
                               prompt_len=3)
    out = procs(torch.tensor([[4, 4, 9, 7, 7, 8]]), torch.zeros(1, 10))
    expected = torch.zeros(10)
    expected[7], expected[8] = -(0.5 + 2 * 0.25), -(0.5 + 0.25)
    assert torch.equal(out[0], expected)
    assert not history_processors(SamplingParams(), prompt_len=3)  # nothing asked, nothing run


def test_the_echo_penalty_weighs_the_reply_only():
    """Prompt 4 5 9, reply 7 5: 7 and 5 are divided by the penalty when positive and
    multiplied when negative; 4 and 9 (the prompt's only) and the rest keep their scores."""
    import torch

    from api.engine.sampling import history_processors
    from api.types import SamplingParams

    procs = history_processors(SamplingParams(echo_penalty=2.0), prompt_len=3)
    scores = torch.tensor([[1.0, 1, 1, 1, 1, 1, 1, -1, 1, 3]])
    out = procs(torch.tensor([[4, 5, 9, 7, 5]]), scores.clone())
    assert out[0].tolist() == [1, 1, 1, 1, 1, 0.5, 1, -2, 1, 3]


WORDS = ["<s>", " I", "'m", " so", " glad", " you", "'re", " here", "!", " How", " can", " help",
         " Your", " code", " is", " 77", "-", "QP", " now", " Bye", " we", " the", " Wh", "isp",
         "ering", " P", "ines", " Camp", "ground", " near", " lake", " it", " was"]


def _echo_guard(prompt: list[int], replies, penalty: float = 1.2):
    from api.engine.echo import EchoPenalty

    return EchoPenalty(penalty, len(prompt), replies, lambda ids: "".join(WORDS[i] for i in ids))


def _ruled_out(guard, prompt: list[int], reply: list[int]) -> list[int]:
    """The tokens the guard penalises as echoes (every score is 1; the own-token rule only
    divides a score by the penalty, the echo rule subtracts logits)."""
    import torch

    out = guard(torch.tensor([prompt + reply]), torch.ones(1, len(WORDS)))
    assert bool(torch.isfinite(out).all())  # never a ban: a grammar may allow only that token
    return [i for i, v in enumerate(out[0].tolist()) if v < 0]


def test_a_reply_does_not_write_an_earlier_replys_prose_again():
    """An earlier reply (ids 2..12 of the prompt) said " I'm so glad you're here! How can
    help"; a reply that has written again ECHO_WORDS words of it (and ECHO_RUN tokens) cannot
    write the word that followed them there, and nothing else is ruled out; a shorter shared
    passage, or a reply that left it, is free."""
    from api.engine.echo import ECHO_RUN, ECHO_WORDS

    earlier = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    prompt = [0, 19] + earlier + [0, 11]
    guard = _echo_guard(prompt, [(2, 2 + len(earlier))])
    assert (ECHO_RUN, ECHO_WORDS) == (6, 5)
    assert _ruled_out(guard, prompt, [1, 2, 3, 4, 5, 6]) == []  # " I'm so glad you're": 4 words
    # 5 words: punctuation goes on (an identifier's "-" or "." might), a word does not
    assert _ruled_out(guard, prompt, [1, 2, 3, 4, 5, 6, 7]) == []
    assert _ruled_out(guard, prompt, [1, 2, 3, 4, 5, 6, 7, 8]) == [9]  # " How"
    assert _ruled_out(guard, prompt, [20, 3, 4, 5, 6, 7, 8]) == []  # " so glad you're here!"
    assert _ruled_out(guard, prompt, [3, 4, 5, 6, 7, 8, 9]) == [10]  # 5 words again
    assert _ruled_out(guard, prompt, [1, 2, 3, 4, 20, 6, 7, 8]) == []  # its own words


def test_the_echo_penalty_grows_with_the_passage_and_with_the_setting():
    """Past ECHO_WORDS words the penalty grows by ECHO_GROWTH a word; it scales with
    echo_penalty - 1, and at or below 1 the earlier-replies rule is off."""
    import torch

    from api.engine.echo import ECHO_GROWTH, ECHO_SCALE

    earlier = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    prompt = [0, 19] + earlier + [0, 11]

    def lost(penalty: float, reply: list[int], token: int) -> float:
        guard = _echo_guard(prompt, [(2, 2 + len(earlier))], penalty)
        out = guard(torch.tensor([prompt + reply]), torch.ones(1, len(WORDS)))
        return 1 - float(out[0, token])

    assert lost(1.2, earlier[:8], 9) == pytest.approx(ECHO_SCALE * 0.2)  # 5 words, " How"
    assert lost(1.2, earlier[:9], 10) == pytest.approx(ECHO_SCALE * 0.2 * ECHO_GROWTH)  # 6
    assert lost(1.5, earlier[:8], 9) == pytest.approx(ECHO_SCALE * 0.5)
    assert lost(1.0, earlier[:8], 9) == 0
    assert lost(0.5, earlier[:8], 9) == 0  # off below 1 (the own-token rule weighs only 1..8)


def test_the_echo_guard_leaves_names_quotes_and_identifiers_free():
    """A long name (many tokens, few words) said in an earlier reply may be said again; the
    same passage in the user's text is a quote, not an echo; a passage holding a digit or a
    glued "-" (an identifier) is copied on; with no earlier replies nothing is ruled out."""
    name = [21, 22, 23, 24, 25, 26, 27, 28, 29, 30]  # " the Whispering Pines Campground near lake"
    prompt = [0] + name + [0]
    guard = _echo_guard(prompt, [(1, 1 + len(name))])
    assert _ruled_out(guard, prompt, [31, 32] + name[:7]) == []  # " it was the Whispering Pines Camp"
    assert _ruled_out(guard, prompt, [31, 32] + name[:8]) == []  # "...Campground": 4 words
    assert _ruled_out(guard, prompt, [31, 32] + name[:9]) == [30]  # " near": 5, " lake" is not
    earlier = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    told = [0] + earlier + [0]
    prompt = told + earlier
    guard = _echo_guard(prompt, [(len(told), len(prompt))])
    assert _ruled_out(guard, prompt, earlier[:8]) == []
    code = [12, 13, 14, 15, 16, 17, 16, 15, 18]  # " Your code is 77-QP-77 now"
    prompt = [0] + code + [0]
    guard = _echo_guard(prompt, [(1, 1 + len(code))])
    for n in range(6, len(code)):
        assert _ruled_out(guard, prompt, code[:n]) == []
    assert _ruled_out(_echo_guard(prompt, []), prompt, code[:7]) == []


@pytest.mark.parametrize("earlier", [
    "你好！我最近想跨墅。你呢？今天天气很好，我们一起去公园散步吧。",  # characters cut across byte tokens
    "Eggs & sausages with skin-less chicken, a classic dinner for two.",
    "Привет! Я очень рад тебя видеть сегодня вечером.",
    "The **Frozen** recipe is indeed a Japanese dessert – made with agar or starch.",  # Markdown
])
def test_the_echo_guard_reads_whole_characters_and_hyphenated_words(tokenizer, earlier):
    """With the real tokenizer: a reply writing an earlier reply again, in any script (a CJK
    character can be three byte tokens, none a letter alone), with "&", a hyphenated word,
    Markdown's "*" or a dash, is stopped from going on once it has written ECHO_WORDS words of it, and
    only then."""
    import re

    import torch

    from api.engine.echo import ECHO_WORDS, EchoPenalty

    ids = tokenizer(earlier, add_special_tokens=False)["input_ids"]
    prompt = [tokenizer.eos_token_id] + ids + [tokenizer.eos_token_id]
    guard = EchoPenalty(1.2, len(prompt), [(1, 1 + len(ids))], tokenizer.decode)
    first = None
    for n in range(1, len(ids)):
        out = guard(torch.tensor([prompt + ids[:n]]), torch.ones(1, len(tokenizer)))
        blocked = (out[0] < 0).nonzero().flatten().tolist()
        assert blocked in ([], [ids[n]])
        if blocked and first is None:
            first = n
    assert first is not None
    words = re.findall(r"[\u4e00-\u9fff]|\w+(?:-\w+)*", tokenizer.decode(ids[:first]))
    assert len(words) in (ECHO_WORDS, ECHO_WORDS + 1)  # where the 5th word ends, or just after


def test_a_passage_the_user_quoted_is_free_whatever_its_token_boundaries(tokenizer):
    """The user quoted the earlier reply after "You said:" (so its first word is " The" to the
    tokenizer, "The" in the reply): the reply may write the quoted part again; past it, the
    earlier reply's next words are echoes again."""
    import torch

    from api.engine.echo import EchoPenalty

    said = "The old lighthouse keeper walked slowly along the rocky shore every single evening."
    quoted = "You said: The old lighthouse keeper walked slowly along the rocky shore"
    eos = tokenizer.eos_token_id
    user_ids = tokenizer(quoted, add_special_tokens=False)["input_ids"]
    ids = tokenizer(said, add_special_tokens=False)["input_ids"]
    prompt = [eos] + ids + [eos] + user_ids + [eos]
    guard = EchoPenalty(1.2, len(prompt), [(1, 1 + len(ids))], tokenizer.decode)
    penalised = []
    for n in range(1, len(ids)):
        out = guard(torch.tensor([prompt + ids[:n]]), torch.ones(1, len(tokenizer)))
        if float(out[0, ids[n]]) < 0:
            penalised.append(tokenizer.decode(ids[n]))
    assert penalised and penalised[0] == " every", penalised


def test_the_echo_penalty_leaves_a_copy_of_the_prompt_free_to_go_on():
    """An identifier quoted from the conversation repeats its own pieces ("-" in XK-4471-QP):
    the prompt holds 1 2 3 1 (as "XK - 44 -"); a reply that has written 1 2 3 is copying it, so
    its next token, 1, keeps its score though the reply holds it; 2 and 3 (the reply's, not
    the copy's next) are weighed. Once the reply leaves the prompt's passages, 1 is weighed
    again."""
    import torch

    from api.engine.sampling import history_processors
    from api.types import SamplingParams

    procs = history_processors(SamplingParams(echo_penalty=2.0), prompt_len=5)
    scores = torch.tensor([[1.0, 4, 4, 4, 1, 1]])
    out = procs(torch.tensor([[9, 1, 2, 3, 1, 1, 2, 3]]), scores.clone())
    assert out[0].tolist() == [1, 4, 2, 2, 1, 1]
    out = procs(torch.tensor([[9, 1, 2, 3, 1, 1, 2, 3, 5, 2, 3]]), scores.clone())
    assert out[0].tolist() == [1, 2, 2, 2, 1, 0.5]
