"""The standard library: urllib.request with HTTPBasicAuthHandler or HTTPDigestAuthHandler
(challenge-driven), or HTTPPasswordMgrWithPriorAuth (preemptive Basic). One opener for both requests."""
import urllib.error
import urllib.request

from cell import Cell, run, unsupported


def client(cell: Cell) -> tuple[int, int]:
    if cell.mode == "preemptive" and cell.scheme == "basic":
        passwords = urllib.request.HTTPPasswordMgrWithPriorAuth()
        passwords.add_password(None, cell.base, cell.user, cell.password, is_authenticated=True)
        handler = urllib.request.HTTPBasicAuthHandler(passwords)
    elif cell.mode == "challenge":
        passwords = urllib.request.HTTPPasswordMgrWithDefaultRealm()
        passwords.add_password(None, cell.base, cell.user, cell.password)
        kind = {"basic": urllib.request.HTTPBasicAuthHandler, "digest": urllib.request.HTTPDigestAuthHandler}
        handler = kind[cell.scheme](passwords)
    else:
        raise unsupported(cell)
    opener = urllib.request.build_opener(handler)

    def send(request: urllib.request.Request) -> int:
        try:
            with opener.open(request) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    get = send(urllib.request.Request(cell.base + cell.path))
    post = send(
        urllib.request.Request(
            cell.base + "/api/books", data=cell.body.encode(), headers={"Content-Type": "application/json"}
        )
    )
    return get, post


run(client)
