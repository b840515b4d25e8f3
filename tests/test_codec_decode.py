"""The codec's limit on nesting, whether or not the body has enough brackets to be walked."""
import pytest

from agents_protocol.core import codec


def nested(levels, opening="[", closing="]"):
    return opening * levels + closing * levels


@pytest.mark.parametrize("as_bytes", [False, True])
def test_nesting_up_to_the_limit_is_decoded_and_past_it_refused(as_bytes):
    def text(value):
        return value.encode() if as_bytes else value

    assert codec.nesting_depth(codec.decode(text(nested(codec.MAX_NESTING)))) == codec.MAX_NESTING
    with pytest.raises(codec.MalformedJSON, match="nests deeper than 32 levels"):
        codec.decode(text(nested(codec.MAX_NESTING + 1)))
    objects = '{"a":' * (codec.MAX_NESTING + 1) + "1" + "}" * (codec.MAX_NESTING + 1)
    with pytest.raises(codec.MalformedJSON, match="nests deeper"):
        codec.decode(text(objects))


def test_brackets_inside_strings_do_not_make_a_shallow_body_too_deep():
    body = '{"note": "' + "[{" * 40 + '", "list": [[1]]}'
    assert codec.decode(body) == {"note": "[{" * 40, "list": [[1]]}
    assert codec.may_nest_deeper_than_allowed(body)  # walked, and found shallow


def test_a_body_with_few_brackets_is_not_walked():
    assert not codec.may_nest_deeper_than_allowed(b'{"jsonrpc": "2.0", "params": {"arguments": {"id": "p1"}}}')
    assert not codec.may_nest_deeper_than_allowed(nested(codec.MAX_NESTING))
    assert codec.may_nest_deeper_than_allowed(nested(codec.MAX_NESTING + 1))
