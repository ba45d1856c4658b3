"""requests: a run of GETs on one Session with HTTPDigestAuth, which reuses its nonce with a rising nc.

Usage: requests_run.py URL USER PASSWORD COUNT; prints {"statuses":[...]} or {"error":"..."}.
"""
import json
import sys

import requests
from requests.auth import HTTPDigestAuth

url, user, password, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
try:
    with requests.Session() as session:
        session.auth = HTTPDigestAuth(user, password)
        print(json.dumps({"statuses": [session.get(url).status_code for _ in range(count)]}))
except Exception as error:  # the cause goes into the test's message
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
