#!/usr/bin/env python3
"""Steps of scripts/bench-all.sh that are plain HTTP calls.

  bench-helper.py status URL TENANT        wait for the tenant's reindex, print its figures
  bench-helper.py delete-srs URL TENANT N  DELETE /source-storage/records/{id} for N records
"""
import http.client
import json
import sys
import time
import urllib.parse


def connect(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)


def call(conn, method, path, tenant, token=None, body=None):
    headers = {"x-okapi-tenant": tenant, "content-type": "application/json"}
    if token:
        headers["x-okapi-token"] = token
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, response.getheader("x-okapi-token"), data


def login(conn, tenant):
    status, token, data = call(conn, "POST", "/authn/login", tenant, body={"username": "admin", "password": "bench"})
    if status >= 300:
        sys.exit(f"login to {tenant} failed: {status} {data[:200]!r}")
    return token or json.loads(data)["okapiToken"]


def status(url, tenant):
    conn = connect(url)
    token = login(conn, tenant)
    while True:
        code, _, data = call(conn, "GET", "/search/index/instance-records/reindex/status", tenant, token)
        entry = json.loads(data)[0]
        if entry["status"] != "UPLOAD_IN_PROGRESS":
            break
        time.sleep(1)
    last = entry.get("lastReindex") or {}
    seconds = last.get("seconds") or 0
    rate = last.get("instances", 0) / seconds if seconds else 0
    print(f"reindex of {tenant}: {entry['status']}, {last.get('instances')} instances in {seconds:.1f} s "
          f"({rate:,.0f} instances/s), {last.get('replayed')} changes replayed")


def delete_srs(url, tenant, n):
    conn = connect(url)
    token = login(conn, tenant)
    code, _, data = call(conn, "GET", f"/source-storage/records?state=ACTUAL&limit={n}", tenant, token)
    if code != 200:
        sys.exit(f"listing SRS records failed: {code} {data[:200]!r}")
    ids = [r["id"] for r in json.loads(data)["records"]]
    started = time.monotonic()
    failed = 0
    for record_id in ids:
        code, _, _ = call(conn, "DELETE", f"/source-storage/records/{record_id}", tenant, token)
        failed += code != 204
    elapsed = time.monotonic() - started
    print(f"deleted {len(ids) - failed} SRS records ({failed} failed) in {elapsed:.1f} s, "
          f"{elapsed / max(len(ids), 1) * 1000:.2f} ms each, one connection")


if __name__ == "__main__":
    command, url, tenant = sys.argv[1:4]
    if command == "status":
        status(url, tenant)
    elif command == "delete-srs":
        delete_srs(url, tenant, int(sys.argv[4]))
    else:
        sys.exit(__doc__)
