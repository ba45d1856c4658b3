"""requests: HTTPBasicAuth (preemptive) or HTTPDigestAuth (challenge-driven), one Session for both requests."""
import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth

from cell import Cell, run, unsupported


def client(cell: Cell) -> tuple[int, int]:
    if (cell.scheme, cell.mode) == ("basic", "preemptive"):
        auth = HTTPBasicAuth(cell.user, cell.password)
    elif (cell.scheme, cell.mode) == ("digest", "challenge"):
        auth = HTTPDigestAuth(cell.user, cell.password)
    else:
        raise unsupported(cell)
    with requests.Session() as session:
        session.auth = auth
        get = session.get(cell.base + cell.path).status_code
        post = session.post(
            cell.base + "/api/books", data=cell.body, headers={"Content-Type": "application/json"}
        ).status_code
    return get, post


run(client)
