"""Streaming text pieces never split a character, and stop strings are caught across pieces."""

from __future__ import annotations

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


def _warped(scores, temperature, top_k, top_p):
    """transformers' own warpers, in generate's order, on one row."""
    import torch
    from transformers.generation.logits_process import (
        TemperatureLogitsWarper,
        TopKLogitsWarper,
        TopPLogitsWarper,
    )

    ids = torch.zeros((1, 1), dtype=torch.long)
    out = TemperatureLogitsWarper(temperature)(ids, scores[None].clone())
    if top_k:
        out = TopKLogitsWarper(top_k)(ids, out)
    if top_p < 1.0:
        out = TopPLogitsWarper(top_p)(ids, out)
    return out[0]


def test_top_k_and_top_p_keep_what_transformers_keeps():
    """One batch of rows, each with its own temperature, top-k and top-p, over the default
    vocabulary's size: the tokens left to draw from are transformers' (its sort of the whole
    vocabulary against the top candidates read here), peaked and flat rows, a nucleus past
    the first candidates, rows asking for neither filter beside rows asking for both."""
    import torch

    from api.engine.sampling import NUCLEUS_FIRST, NUCLEUS_GROWTH, RowSampler, _draw
    from api.types import SamplingParams

    g = torch.Generator().manual_seed(5)
    vocab, cpu = 49152, torch.device("cpu")
    rows = [(3.0, 0.8, 0, 0.9), (1.0, 0.2, 0, 0.9), (0.5, 1.0, 40, 0.95), (2.0, 1.5, 0, 0.999),
            (0.3, 1.0, 0, 1.0), (4.0, 0.7, 5, 1.0), (1.0, 1.0, 0, 0.5), (0.05, 1.0, 0, 0.97),
            (6.0, 1.0, 2000, 0.99), (1.5, 1.0, 0, 0.9999), (3.0, 0.7, 0, 0.999999)]
    scores = torch.stack([spread * torch.randn(vocab, generator=g) for spread, *_ in rows])
    scores[1, :1000] = -torch.inf  # a row whose grammar already ruled tokens out
    samplers = [RowSampler(SamplingParams(do_sample=True, temperature=t, top_k=k, top_p=p,
                                          seed=i), cpu) for i, (_s, t, k, p) in enumerate(rows)]
    _drawn, filtered = _draw(scores.clone(), samplers)
    kept = torch.isfinite(filtered)
    sizes = []
    for i, (_s, t, k, p) in enumerate(rows):
        want = torch.isfinite(_warped(scores[i], t, k, p))
        # The mass kept, exactly: at least p, and less than p without its least likely token.
        probs = torch.softmax(_warped(scores[i], t, k, 1.0).double(), dim=-1)
        mass, least = probs[kept[i]].sum(), probs[kept[i]].min()
        assert mass >= p - 1e-6 and (p == 1.0 or mass - least < p + 1e-6), (i, mass, least)
        differ = (kept[i] != want).nonzero().flatten()
        if p < 0.99999:  # the same tokens as transformers', but where float32 cannot tell
            above = torch.stack([probs[probs > probs[j]].sum() for j in differ]) if len(differ) \
                else torch.zeros(0, dtype=torch.float64)
            assert len(differ) <= 2 and ((above - p).abs() < 1e-5).all(), (i, differ, above)
        sizes.append(int(kept[i].sum()))
    assert sizes[4] == vocab and sizes[5] == 5
    # inside the first look, inside the second, past it; near p = 1, where float32's
    # softmax, summing to 1 only within 1e-5, closed the nucleus thousands of tokens early
    assert 1 < sizes[1] < NUCLEUS_FIRST < sizes[0] < NUCLEUS_GROWTH * NUCLEUS_FIRST < sizes[3]
    assert sizes[3] < sizes[9] < vocab and sizes[10] > 20000


def test_top_p_keeps_a_top_set_where_probabilities_tie():
    """Tied probabilities at the nucleus' edge: which of the tied tokens stay is an order's
    choice (transformers' sort is not stable either); as many stay, and none ranked below a
    token that was left out."""
    import torch

    from api.engine.sampling import RowSampler, _draw
    from api.types import SamplingParams

    g = torch.Generator().manual_seed(2)
    scores = torch.randint(0, 4, (3, 3000), generator=g).float()
    samplers = [RowSampler(SamplingParams(do_sample=True, top_p=p, seed=0), torch.device("cpu"))
                for p in (0.3, 0.6, 0.9)]
    _drawn, filtered = _draw(scores.clone(), samplers)
    for i, p in enumerate((0.3, 0.6, 0.9)):
        kept = torch.isfinite(filtered[i])
        want = torch.isfinite(_warped(scores[i], 1.0, 0, p))
        assert int(kept.sum()) == int(want.sum())
        assert scores[i][kept].min() >= scores[i][~kept].max()


def test_a_uniform_draw_of_zero_never_picks_a_token_ruled_out(monkeypatch):
    """The race's noise is -log U: were U exactly 0 (one draw in 2^24 per token), E would be
    infinite, p / E zero for every token, and a row allowing only one token would take the
    first id, which it rules out."""
    import torch

    from api.engine import sampling
    from api.engine.sampling import RowSampler, sample
    from api.types import SamplingParams

    monkeypatch.setattr(sampling, "_uniform", lambda rows, vocab, device: torch.zeros(len(rows), vocab))
    logits = torch.full((2, 50), -torch.inf)
    logits[0, 7] = 1.0  # one token allowed (a grammar's mask, or top-k 1)
    logits[1, 3:6] = torch.tensor([0.5, 2.0, 1.0])
    rows = [RowSampler(SamplingParams(do_sample=True, seed=i), torch.device("cpu")) for i in range(2)]
    assert sample(logits, rows, [[0], [0]]) == [7, 4]


def test_scores_pushed_to_infinity_share_the_draw_and_ruled_out_tokens_stay_out():
    """A vanishing repetition penalty sends seen tokens' scores to +inf; tempered below 1 they
    must still share the draw (a +inf / T was NaN after softmax, and the first always won).
    And a token ruled out (-inf) is never a log-probability alternative, whatever the
    filters (it was read as the lowest finite score where no top-p masked it again)."""
    import torch

    from api.engine.sampling import RowSampler, sample
    from api.types import SamplingParams

    cpu = torch.device("cpu")
    logits = torch.tensor([[1.0, 3.0, 2.0, -1.0]])
    drawn = {sample(logits.clone(), [RowSampler(SamplingParams(
        do_sample=True, temperature=0.5, repetition_penalty=1e-300, seed=i), cpu)], [[0, 2]])[0]
        for i in range(40)}
    assert drawn == {0, 2}
    allowed = torch.full((1, 50), -torch.inf)
    allowed[0, [4, 9]] = torch.tensor([1.0, 0.5])
    row = RowSampler(SamplingParams(do_sample=True, temperature=1.5, logprobs=5, seed=0), cpu)
    sample(allowed, [row], [[0]])
    assert {t for t, _ in row.last.top} == {4, 9}
