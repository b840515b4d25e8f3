"""The audit chain's canonical JSON is RFC 8785's, byte for byte, whichever writer made it.

hashing.canonical_json writes the values an event usually holds with the standard library's
encoder and gives everything else to the `rfc8785` package; both must give the bytes (or the
refusal) that `rfc8785` alone gives, or every event hash published since would change.
"""
import hashlib

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from agents_protocol.audit.chain import _event
from agents_protocol.audit.hashing import EVENT_FIELDS, canonical_json, event_hash, is_plain
from agents_protocol.audit.redaction import digest, redact
from tests.hypothesis_profiles import examples

MANY = settings(max_examples=examples(250, 1000))  # tests/hypothesis_profiles.py: ci, thorough
SAFE = 2**53 - 1

# Every code point, lone surrogates included, with the ones where JSON writers differ most often.
any_character = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
tricky_text = st.sampled_from(["\u2028", "\u2029", "\x7f", "\x00", "\x1f", "\b\f\n\r\t", '"\\/', "\ud800",
                               "\udfff", "\U0001f3fa", "\ufeff", "\ue000", "é", "\u0085"])
text = st.one_of(st.text(any_character, max_size=12), tricky_text,
                 st.lists(tricky_text, max_size=4).map("".join))
integers = st.one_of(st.integers(), st.integers(-SAFE - 2, -SAFE + 2), st.integers(SAFE - 2, SAFE + 2),
                     st.sampled_from([0, -1, 2**63, -(2**64)]))
scalars = st.one_of(st.none(), st.booleans(), integers, st.floats(allow_nan=False, allow_infinity=False), text)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(text, inner, max_size=4)), max_leaves=20)

# What events hold day to day: the writer must take its own path for these.
plain_text = st.text(st.characters(codec="utf-8"), max_size=12) | tricky_text.filter(
    lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t))
plain_scalars = st.one_of(st.none(), st.booleans(), st.integers(-SAFE, SAFE), plain_text)
plain_values = st.recursive(plain_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(st.characters(max_codepoint=0x7F), max_size=6), inner,
                                                 max_size=4)), max_leaves=20)


def outcome(write, value):
    """What `write` makes of `value`: its bytes, or the kind of refusal (rfc8785 refuses a lone
    surrogate in a key with UnicodeEncodeError, elsewhere with its CanonicalizationError)."""
    try:
        return write(value)
    except ValueError as refusal:
        return type(refusal)


@MANY
@given(values)
def test_any_value_is_written_or_refused_as_rfc8785_does(value):
    assert outcome(canonical_json, value) == outcome(rfc8785.dumps, value)


@MANY
@given(plain_values)
def test_plain_values_take_the_standard_encoder_and_give_the_same_bytes(value):
    assert is_plain(value)
    assert canonical_json(value) == rfc8785.dumps(value)


@MANY
@given(seq=st.integers(1, 10**6), prev_hash=st.text(st.sampled_from("0123456789abcdef"), min_size=64, max_size=64),
       capability=plain_text, path=plain_text, params=st.dictionaries(text, values, max_size=5),
       status=st.integers(100, 599))
def test_event_hash_is_the_sha256_of_the_rfc8785_event(seq, prev_hash, capability, path, params, status):
    try:
        event = _event(seq, prev_hash, capability, "POST", path, params, status, "allow")
    except ValueError:
        with pytest.raises(ValueError):
            rfc8785.dumps(params)
        return
    expected = hashlib.sha256(rfc8785.dumps({field: event[field] for field in EVENT_FIELDS})).hexdigest()
    assert event["event_hash"] == event_hash(event) == expected


@pytest.mark.parametrize("value, expected", [
    ({"b": 1, "a": [True, None, "x"]}, b'{"a":[true,null,"x"],"b":1}'),
    ("\u2028\x7f\x1f\n", '"\u2028\x7f\\u001f\\n"'.encode()),
    ({"\ue000": 1, "\U0001f3fa": 2}, '{"\U0001f3fa":2,"\ue000":1}'.encode()),  # UTF-16 order, not code points
    (SAFE, b"9007199254740991"),
    (1.0, b"1"),
    ((1, "a"), b'[1,"a"]'),
])
def test_known_canonical_forms(value, expected):
    assert canonical_json(value) == expected


@pytest.mark.parametrize("value", [SAFE + 1, -SAFE - 1, "\ud800", {"k": ["\udfff"]}, float("nan"), {1: "a"}])
def test_what_rfc8785_refuses_is_refused(value):
    with pytest.raises(rfc8785.CanonicalizationError):
        canonical_json(value)


def test_redacted_values_are_digests_of_the_canonical_json():
    value = {"street": "Rue \u2028 1", "floor": 3}
    assert digest(value) == "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


@pytest.mark.parametrize("params, kept, hidden", [
    ({"email": "a@example.com", "item_id": "mug"}, {"item_id": "mug"}, ["email"]),
    ({"customer_email": "a@example.com", "shipping_address": "1 Loom Lane", "phone_number": "+44 1",
      "api_key": "k"}, {}, ["customer_email", "shipping_address", "phone_number", "api_key"]),
    ({"recipients": [{"email": "a@example.com", "role": "to"}, "plain"]},
     {"recipients": [{"role": "to"}, "plain"]}, []),
    ({"agent_name": "shopper", "name": "Ada"}, {"agent_name": "shopper"}, ["name"]),
])
def test_sensitive_values_are_hashed_at_any_depth_and_under_compound_names(params, kept, hidden):
    redacted = redact(params)
    for name in hidden:
        assert redacted[name] == digest(params[name])
    visible = {name: value for name, value in redacted.items() if name not in hidden}
    if "recipients" in params:
        email = params["recipients"][0]["email"]
        assert redacted["recipients"][0]["email"] == digest(email)
        visible["recipients"][0] = {k: v for k, v in redacted["recipients"][0].items() if k != "email"}
    assert visible == kept
    assert "a@example.com" not in canonical_json(redacted).decode()
