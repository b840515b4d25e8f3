"""Each answer as its protocol says, in process: an A2A request's id is a string or an integer
(the binding's SendMessageRequest; a null id is refused -32600), an MCP POST says Content-Type:
application/json (Streamable HTTP; without it: 415), and a database file that is no database
is an outage, the 503 page (HTTP). Over real HTTP: tests/test_faults_database_files.py."""
import json

import pytest
from django.db import DatabaseError
from django.test import RequestFactory

from acme.errors import server_error

pytestmark = pytest.mark.django_db

A2A = "/.well-known/agents/a2a"
SEARCH = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"data": {"skill": "search", "input": {"q": "mug"}}}]}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def a2a(client, message):
    return client.post(A2A, json.dumps(message), content_type="application/json", HTTP_A2A_VERSION="1.0")


def test_an_a2a_request_with_a_null_id_is_an_invalid_request(client):
    answer = a2a(client, {"jsonrpc": "2.0", "id": None, "method": "SendMessage", "params": SEARCH})
    assert answer.status_code == 200
    assert answer.json() == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32600, "message": "The id must be a string or an integer."}}


@pytest.mark.parametrize("rpc_id", ["call-1", 7])
def test_an_a2a_request_with_a_string_or_integer_id_is_answered_for_it(client, rpc_id):
    answer = a2a(client, {"jsonrpc": "2.0", "id": rpc_id, "method": "SendMessage", "params": SEARCH}).json()
    assert answer["id"] == rpc_id and "result" in answer


def test_an_mcp_post_without_content_type_is_415(client):
    answer = client.generic("POST", "/mcp", json.dumps(INITIALIZE), CONTENT_TYPE="",
                            HTTP_ACCEPT="application/json, text/event-stream")
    assert answer.status_code == 415
    assert answer.json()["error"]["data"] == {"code": "unsupported_media_type", "status": 415}


def test_a_database_file_that_is_no_database_is_the_503_page():
    try:
        raise DatabaseError("file is not a database")  # what SQLite's driver raises for one
    except DatabaseError:
        page = server_error(RequestFactory().get("/"))
    assert page.status_code == 503 and page["Retry-After"] == "5"
