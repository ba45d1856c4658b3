"""What every Python client of the matrix shares: the command line and the one-line JSON answer.

Usage: CLIENT.py BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
"""
import json
import sys
from typing import Callable, NamedTuple


class Cell(NamedTuple):
    base: str
    path: str
    body: str
    scheme: str
    mode: str
    user: str
    password: str


def run(client: Callable[[Cell], tuple[int, int]]) -> None:
    cell = Cell(*sys.argv[1:8])
    try:
        get, post = client(cell)
        print(json.dumps({"get": get, "post": post}))
    except Exception as error:  # the cause goes into the table
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))


def unsupported(cell: Cell) -> Exception:
    return ValueError(f"unsupported cell {cell.scheme}/{cell.mode}")
