"""Parse answers with ucp-sdk 0.1.0's models; run by tests/test_ucp_conformance.py with the
conformance suite's virtualenv (ucp-sdk pins its own pydantic).

Reads JSON lines {"kind": ..., "where": ..., "body": ...} on stdin, kinds as in KINDS; prints
one JSON line {"where": ..., "model": ..., "error": ...} per answer a model refuses.
"""
import json
import sys
from typing import Literal

from pydantic import BaseModel, Field, ValidationError
from ucp_sdk.models.discovery.profile_schema import UcpDiscoveryProfile
from ucp_sdk.models.schemas.shopping import buyer_consent_resp, discount_resp, fulfillment_resp, order
from ucp_sdk.models.schemas.shopping.checkout_resp import CheckoutResponse
from ucp_sdk.models.schemas.shopping.types.message_error import MessageError


class ErrorAnswer(BaseModel):
    """The REST binding's error structure (checkout-rest.md, "Error Responses")."""

    status: Literal["incomplete", "requires_escalation", "ready_for_complete", "complete_in_progress",
                    "completed", "canceled"] | None = None
    messages: list[MessageError] = Field(min_length=1)


KINDS = {
    "profile": [UcpDiscoveryProfile],
    # The base checkout and each extension the profile declares, as the suite parses them.
    "checkout": [CheckoutResponse, fulfillment_resp.Checkout, discount_resp.Checkout, buyer_consent_resp.Checkout],
    "order": [order.Order],
    "error": [ErrorAnswer],
}


def refusals(answer):
    for model in KINDS[answer["kind"]]:
        try:
            model.model_validate(answer["body"])
        except ValidationError as error:
            yield {"where": answer["where"], "model": f"{model.__module__}.{model.__qualname__}", "error": str(error)}


def main():
    for line in sys.stdin:
        for refusal in refusals(json.loads(line)):
            print(json.dumps(refusal))


if __name__ == "__main__":
    main()
