"""aiohttp: BasicAuth (preemptive) or DigestAuthMiddleware (challenge-driven), one ClientSession for both."""
import asyncio

import aiohttp

from cell import Cell, run, unsupported


async def both(cell: Cell) -> tuple[int, int]:
    if (cell.scheme, cell.mode) == ("basic", "preemptive"):
        options = {"auth": aiohttp.BasicAuth(cell.user, cell.password)}
    elif (cell.scheme, cell.mode) == ("digest", "challenge"):
        options = {"middlewares": (aiohttp.DigestAuthMiddleware(cell.user, cell.password),)}
    else:
        raise unsupported(cell)
    async with aiohttp.ClientSession(**options) as session:
        async with session.get(cell.base + cell.path) as response:
            get = response.status
        async with session.post(
            cell.base + "/api/books", data=cell.body, headers={"Content-Type": "application/json"}
        ) as response:
            post = response.status
    return get, post


run(lambda cell: asyncio.run(both(cell)))
