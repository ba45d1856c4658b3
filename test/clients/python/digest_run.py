"""A run of GETs with Digest on one session of CLIENT (requests, httpx or aiohttp), each of which keeps
the nonce of its first challenge and counts its uses with a rising nc.

Usage: digest_run.py CLIENT URL USER PASSWORD COUNT; prints {"statuses":[...]} or {"error":"..."}.
"""
import asyncio
import json
import sys


def with_requests(url: str, user: str, password: str, count: int) -> list[int]:
    import requests
    from requests.auth import HTTPDigestAuth

    with requests.Session() as session:
        session.auth = HTTPDigestAuth(user, password)
        return [session.get(url).status_code for _ in range(count)]


def with_httpx(url: str, user: str, password: str, count: int) -> list[int]:
    import httpx

    with httpx.Client(auth=httpx.DigestAuth(user, password)) as session:
        return [session.get(url).status_code for _ in range(count)]


def with_aiohttp(url: str, user: str, password: str, count: int) -> list[int]:
    import aiohttp

    async def statuses() -> list[int]:
        async with aiohttp.ClientSession(middlewares=(aiohttp.DigestAuthMiddleware(user, password),)) as session:
            found = []
            for _ in range(count):
                async with session.get(url) as response:
                    found.append(response.status)
            return found

    return asyncio.run(statuses())


CLIENTS = {"requests": with_requests, "httpx": with_httpx, "aiohttp": with_aiohttp}

if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] not in CLIENTS or "--help" in sys.argv:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(0 if "--help" in sys.argv else 2)
    name, url, user, password, count = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    try:
        print(json.dumps({"statuses": CLIENTS[name](url, user, password, count)}))
    except Exception as error:  # the cause goes into the test's message
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
