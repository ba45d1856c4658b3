"""httpx: BasicAuth (preemptive) or DigestAuth (challenge-driven), one Client for both requests."""
import httpx

from cell import Cell, run, unsupported


def client(cell: Cell) -> tuple[int, int]:
    if (cell.scheme, cell.mode) == ("basic", "preemptive"):
        auth = httpx.BasicAuth(cell.user, cell.password)
    elif (cell.scheme, cell.mode) == ("digest", "challenge"):
        auth = httpx.DigestAuth(cell.user, cell.password)
    else:
        raise unsupported(cell)
    with httpx.Client(auth=auth) as session:
        get = session.get(cell.base + cell.path).status_code
        post = session.post(
            cell.base + "/api/books", content=cell.body, headers={"Content-Type": "application/json"}
        ).status_code
    return get, post


run(client)
