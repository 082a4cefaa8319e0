"""The offline decision model: retrieval, features, calibration and the answers it gives."""

from __future__ import annotations

import json
import math

import pytest

from verifier.llm.offline import OfflineDecisionModel, load_weights, read_predicate
from verifier.llm.offline.bm25 import BM25Index
from verifier.llm.offline.calibration import LogisticModel, fit_logistic, sigmoid
from verifier.llm.offline.decision import Intent
from verifier.llm.offline.features import FEATURES, features, index_state
from verifier.llm.offline.text import directions, estimate_tokens, numbers, sentences, terms
from verifier.llm.offline.weights import OfflineWeights
from verifier.llm.types import AnswerKind, Choice, Predicate, Question, Score

PAPER = (
    "We introduce a sparse attention layer for long documents. "
    "The sparse attention layer reduces memory use by 40% on documents of 16,000 tokens. "
    "Training used eight GPUs for three days. "
    "Accuracy on the summarisation benchmark increased from 41.2 to 43.5 ROUGE. "
    "The code is released under the MIT licence."
)
MODEL = OfflineDecisionModel()


def p_true(statement: str, state: str = PAPER) -> float:
    result = MODEL.decide(state, {"q": Predicate(f"Is this true according to the paper? "
                                                 f"Premise: {statement}")})
    probability = result.answers["q"].probability
    assert probability is not None
    return probability


# ---------------------------------------------------------------------------------------
# Retrieval and features


def test_bm25_ranks_the_passage_holding_the_statements_words_first() -> None:
    passages = [terms(s) for s in sentences(PAPER)]
    ranking = BM25Index(passages).rank(terms("memory use of the sparse attention layer"))
    assert ranking[0].index == 1
    assert ranking[0].score > ranking[1].score > 0
    assert [r.index for r in ranking if r.score == 0] == [2, 3, 4]   # no shared word, in order


def test_bm25_prefers_the_rarer_of_two_matched_terms() -> None:
    index = BM25Index([["cell", "growth"], ["cell", "death"], ["cell", "division"]])
    assert index.idf("growth") > index.idf("cell") > 0
    assert index.rank(["cell", "growth"])[0].index == 0


def test_the_best_passage_covering_the_statement_gives_full_coverage() -> None:
    values = features("The sparse attention layer reduces memory use by 40%.", PAPER)
    assert list(values) == list(FEATURES)
    assert values["cov_top1"] == 1.0
    assert values["num_unmatched"] == 0.0 and values["num_statement"] == 1.0
    assert values["neg_mismatch"] == 0.0 and values["dir_oppose"] == 0.0


def test_text_primitives_read_numbers_negation_and_direction() -> None:
    assert numbers("40 % of 16,000 tokens at 3.50 ms [<|cit|>] [12]") == {"40%", "16000", "3.5"}
    assert directions("Accuracy increased.") == {"change": 1}
    assert directions("Accuracy did not increase.") == {"change": -1}
    assert terms("The cells were binding") == terms("cell binds")
    assert estimate_tokens("") == 0 and estimate_tokens("abcde") == 2


def test_sentences_end_at_headings_and_punctuation_but_not_at_wrapped_lines() -> None:
    text = ("Sparse Attention\nAbstract\nWe show that sparse attention cuts memory use by\n"
            "40% on long inputs. It works.\n\nRESULTS   Memory fell.")
    assert sentences(text) == ["Sparse Attention", "Abstract",
                               "We show that sparse attention cuts memory use by 40% on long "
                               "inputs.", "It works.", "RESULTS", "Memory fell."]


# ---------------------------------------------------------------------------------------
# What P(true) responds to


def test_a_negated_statement_scores_below_the_agreeing_one() -> None:
    agreeing = p_true("The sparse attention layer reduces memory use on long documents.")
    negated = p_true("The sparse attention layer does not reduce memory use on long documents.")
    assert negated < agreeing


def test_a_number_the_paper_never_states_scores_below_the_one_it_states() -> None:
    stated = p_true("The sparse attention layer reduces memory use by 40%.")
    wrong = p_true("The sparse attention layer reduces memory use by 75%.")
    assert wrong < stated


def test_an_opposite_direction_scores_below_the_agreeing_one() -> None:
    agreeing = p_true("Accuracy on the summarisation benchmark increased.")
    opposite = p_true("Accuracy on the summarisation benchmark decreased.")
    assert opposite < agreeing


def test_a_statement_about_something_else_scores_below_one_the_paper_covers() -> None:
    assert p_true("Protein folding rates depend on solvent viscosity.") < p_true(
        "Sparse attention reduces memory use on long documents.")


def test_answers_are_deterministic_across_models_and_calls() -> None:
    questions: dict[str, Question] = {
                 "t": Predicate("Is it true? Premise: Memory use fell by 40%."),
                 "c": Choice("Which licence?", {"mit": "MIT licence", "gpl": "GPL"}),
                 "s": Score("How well supported: accuracy increased", ("low", "mid", "high"))}
    first = MODEL.decide(PAPER, questions)
    second = OfflineDecisionModel().decide(PAPER, questions)
    assert first == second


# ---------------------------------------------------------------------------------------
# The question convention


def test_the_statement_follows_the_last_marker_and_the_question_precedes_it() -> None:
    assert read_predicate("Is this premise true according to the paper?\nPremise: X grows.") \
        == (Intent.SUPPORTED, "X grows.")
    assert read_predicate("Does the paper contradict this claim? Claim: X grows.") \
        == (Intent.CONTRADICTED, "X grows.")
    assert read_predicate("Can this be decided from the paper? Statement: X grows.") \
        == (Intent.GROUNDED, "X grows.")
    assert read_predicate("Is this true? The model beats BERT.") \
        == (Intent.SUPPORTED, "The model beats BERT.")
    assert read_predicate("Memory use fell by 40%") == (Intent.SUPPORTED, "Memory use fell by 40%")


def test_a_contradiction_question_is_answered_as_one_minus_supported() -> None:
    statement = "The sparse attention layer reduces memory use by 40%."
    answers = MODEL.decide(PAPER, {
        "true": Predicate(f"Is this true according to the paper? Premise: {statement}"),
        "false": Predicate(f"Does the paper contradict this? Premise: {statement}"),
    }).answers
    assert answers["true"].probability is not None and answers["false"].probability is not None
    assert math.isclose(answers["true"].probability + answers["false"].probability, 1.0)


def test_grounded_is_higher_for_a_statement_the_paper_discusses() -> None:
    def grounded(statement: str) -> float:
        answer = MODEL.decide(PAPER, {"g": Predicate(
            f"Can this be decided from the paper? Premise: {statement}")}).answers["g"]
        assert answer.probability is not None
        return answer.probability
    assert grounded("Sparse attention reduces memory use.") > 0.5 > grounded(
        "Quantum chromodynamics predicts gluon confinement.")


def test_a_statement_in_the_state_is_used_when_the_question_has_none() -> None:
    state = "Claim: Memory use fell by 40% with sparse attention.\n\n" + PAPER
    answer = MODEL.decide(state, {"q": Predicate("Is the claim true?")}).answers["q"]
    assert answer.kind is AnswerKind.PREDICATE and answer.probability is not None


def test_nothing_to_judge_is_a_refusal_never_a_default_probability() -> None:
    answers = MODEL.decide(PAPER, {"bare": Predicate("Is it true?")}).answers
    assert answers["bare"].kind is AnswerKind.REFUSAL and answers["bare"].probability is None
    empty = MODEL.decide("", {"q": Predicate("Premise: Memory use fell.")}).answers["q"]
    assert empty.kind is AnswerKind.REFUSAL and empty.probability is None
    nothing_shared = MODEL.decide(PAPER, {"c": Choice("Pick", {"x": "zebra", "y": "okapi"})})
    assert nothing_shared.answers["c"].kind is AnswerKind.REFUSAL


# ---------------------------------------------------------------------------------------
# Choice and score


def test_a_choice_is_a_distribution_favouring_the_option_the_state_names() -> None:
    answer = MODEL.decide(PAPER, {"c": Choice("Under which licence is the code released?", {
        "mit": "MIT licence", "apache": "Apache 2.0", "gpl": "GNU GPL"})}).answers["c"]
    assert answer.kind is AnswerKind.CHOICE and answer.choice == "mit"
    assert set(answer.probabilities) == {"mit", "apache", "gpl"}
    assert math.isclose(sum(answer.probabilities.values()), 1.0)
    assert answer.probability == answer.probabilities["mit"] > 0.5
    assert answer.probabilities["apache"] == answer.probabilities["gpl"]   # both unknown


def test_a_score_is_a_distribution_over_levels_leaning_with_p_true() -> None:
    levels = ("none", "weak", "moderate", "strong", "full")
    supported = MODEL.decide(PAPER, {"s": Score(
        "How strongly does the paper support this? Premise: The sparse attention layer "
        "reduces memory use by 40%.", levels)}).answers["s"]
    unrelated = MODEL.decide(PAPER, {"s": Score(
        "How strongly does the paper support this? Premise: Training used eight GPUs "
        "and failed to reduce memory, unlike reported in 1999.", levels)}).answers["s"]
    for answer in (supported, unrelated):
        assert answer.kind is AnswerKind.SCORE
        assert list(answer.probabilities) == list(levels)
        assert math.isclose(sum(answer.probabilities.values()), 1.0)
        mean = sum(i * p for i, p in enumerate(answer.probabilities.values())) / 4
        assert answer.probability is not None and math.isclose(answer.probability, mean)
    assert supported.probability is not None and unrelated.probability is not None
    assert supported.probability > unrelated.probability


def test_usage_is_estimated_from_characters_and_the_backend_says_offline() -> None:
    question = Predicate("Premise: Memory use fell.")
    result = MODEL.decide(PAPER, {"q": question})
    assert result.backend == "offline" and result.model.startswith("offline")
    expected = (estimate_tokens(PAPER) + estimate_tokens("q")
                + estimate_tokens(question.instructions))
    assert result.usage.prompt_tokens == expected
    assert (result.usage.completion_tokens, result.usage.requests) == (1, 1)


# ---------------------------------------------------------------------------------------
# Calibration and the shipped weights


def test_the_shipped_weights_load_and_read_only_known_features() -> None:
    weights = load_weights()
    assert set(weights.true.features) <= set(FEATURES)
    assert set(weights.grounded.features) <= set(FEATURES)
    assert weights.trained_on and all(count > 0 for c in weights.counts.values()
                                      for count in c.values())
    assert OfflineWeights.from_json(json.loads(json.dumps(weights.to_json()))) == weights
    # More coverage of the statement means more support, as fitted.
    assert weights.true.weights[weights.true.features.index("cov_top1")] > 0


def test_malformed_weights_are_rejected() -> None:
    good = load_weights().to_json()
    with pytest.raises(ValueError):
        OfflineWeights.from_json({**good, "format": 99})
    with pytest.raises(ValueError):
        OfflineWeights.from_json({**good, "models": {"true": good["models"]["true"]}})
    with pytest.raises(ValueError):
        LogisticModel.from_json({"features": ["a"], "weights": [float("nan")], "intercept": 0})


def test_the_logistic_fit_matches_scikit_learn_with_the_same_penalty() -> None:
    from sklearn.linear_model import LogisticRegression

    rows = [[(i % 7) / 7, ((i * 3) % 5) / 5] for i in range(60)]
    labels = [int(r[0] + 0.5 * r[1] + ((i * 13) % 10) / 20 > 0.8) for i, r in enumerate(rows)]
    ours = fit_logistic(rows, labels, ("a", "b"), l2=2.0)
    reference = LogisticRegression(C=1 / 2.0, tol=1e-10, max_iter=10_000).fit(rows, labels)
    assert ours.weights == pytest.approx(list(reference.coef_[0]), abs=1e-4)
    assert ours.intercept == pytest.approx(float(reference.intercept_[0]), abs=1e-4)


def test_a_balanced_fit_centres_an_uninformative_feature_on_one_half() -> None:
    rows = [[0.0]] * 30
    labels = [1] * 20 + [0] * 10
    assert sigmoid(fit_logistic(rows, labels, ("x",)).intercept) == pytest.approx(2 / 3)
    balanced = fit_logistic(rows, labels, ("x",), balanced=True)
    assert sigmoid(balanced.intercept) == pytest.approx(0.5)


def test_the_fit_rejects_a_single_class() -> None:
    with pytest.raises(ValueError):
        fit_logistic([[0.0], [1.0]], [1, 1], ("x",))


def test_a_state_indexed_once_gives_the_same_features_as_its_text() -> None:
    statement = "Accuracy increased to 43.5 ROUGE."
    assert features(statement, index_state(PAPER)) == features(statement, PAPER)
