#!/usr/bin/env python3
"""OAI-PMH acceptance test: a real harvester (Sickle) and XML Schema validation
(xmlschema) against a running Quire whose tenant holds generated records.

    oai_harvest_test.py BASE_URL API_KEY TENANT ADMIN_PASSWORD

Run by scripts/oai-harvest-test.sh, which builds, generates, serves and installs Sickle
and xmlschema. What it checks:

1. A ListRecords harvest (marc21, GET) during which another thread changes 50 instances
   and deletes 20 through the HTTP API: every instance that exists throughout and is
   untouched is harvested exactly once; a touched one at most twice; nothing else.
2. The incremental harvest from the first one's responseDate has every change (stamped
   between the harvest's start and the last write) and every deletion as a deleted
   header, and nothing untouched; GetRecord of a deleted instance is a deleted header.
3. Full harvests after the writes: ListIdentifiers (GET), ListRecords marc21_withholdings
   (GET) and oai_dc (POST) each list every instance once, the deletions as deleted
   headers.
4. The 952s of 30 instances with items equal their items as the API reads them.
5. Raw responses (every page of a marc21 harvest, 20 pages of the other formats, the
   other verbs and the error cases) validate against OAI-PMH.xsd, with the records
   against MARC21slim.xsd and oai_dc.xsd, all local copies: no network at test time.
6. The protocol's error cases give their codes, echo arguments only where allowed, and
   a hostile argument is neither echoed nor breaks the document.

Only Sickle, xmlschema and the standard library are used. Exits 1 if any check failed.
"""

import calendar
import json
import random
import re
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree as ET

import xmlschema
from sickle import Sickle

OAI_NS = "http://www.openarchives.org/OAI/2.0/"
MARC_NS = "http://www.loc.gov/MARC21/slim"
OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/"
DC_NS = "http://purl.org/dc/elements/1.1/"
OAI_ID_NS = "http://www.openarchives.org/OAI/2.0/oai-identifier"
# The repository root's sibling `shared`, found from this file, never an absolute path.
SCHEMAS = Path(__file__).resolve().parent.parent / ".." / "shared" / "reference" / "schemas"

N_CHANGED = 50
N_DELETED = 20
N_952_INSTANCES = 30
N_TEMPORARY_LOAN_TYPES = 5
PAGES_OF_OTHER_FORMATS = 20
DATESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

rng = random.Random(20240601)


def q(name):
    return "{%s}%s" % (OAI_NS, name)


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def seconds(datestamp):
    return calendar.timegm(time.strptime(datestamp, "%Y-%m-%dT%H:%M:%SZ"))


def show(values, n=10):
    values = sorted(values)
    more = f" ... and {len(values) - n} more" if len(values) > n else ""
    return ", ".join(str(v) for v in values[:n]) + more


class Checks:
    """Counts checks; a failure is printed and remembered, and the run goes on, so that
    one run names every failure."""

    def __init__(self):
        self.passed = 0
        self.failed = []

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed.append(what)
            print(f"FAIL: {what}", file=sys.stderr, flush=True)
        return ok

    def equal(self, actual, expected, what):
        return self(actual == expected, f"{what}: expected {expected!r}, got {actual!r}")


check = Checks()


class Api:
    """The FOLIO HTTP API, as the administrator."""

    def __init__(self, base, tenant, password):
        self.base = base
        self.tenant = tenant
        self.token = None
        status, body, headers = self.call(
            "POST", "/authn/login", {"username": "admin", "password": password}
        )
        if status != 201 and status != 200:
            raise SystemExit(f"login failed: {status} {body[:300]}")
        self.token = json.loads(body).get("okapiToken") or headers.get("x-okapi-token")
        self.cache = {}

    def call(self, method, path, body=None):
        headers = {"X-Okapi-Tenant": self.tenant, "Accept": "application/json, text/plain"}
        if self.token:
            headers["X-Okapi-Token"] = self.token
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), e.headers

    def get(self, path):
        status, body, _ = self.call("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {path}: {status} {body[:300]}")
        return json.loads(body)

    def must(self, method, path, body=None, status=204):
        got, text, _ = self.call(method, path, body)
        if got != status:
            raise RuntimeError(f"{method} {path}: expected {status}, got {got} {text[:300]}")

    def reference(self, path):
        """A reference record (location, material type, ...), read once."""
        if path not in self.cache:
            self.cache[path] = self.get(path)
        return self.cache[path]

    def instance_ids(self):
        ids, offset, limit = {}, 0, 5000
        while True:
            page = self.get(f"/instance-storage/instances?limit={limit}&offset={offset}")
            for instance in page["instances"]:
                ids[instance["id"]] = instance["source"]
            if len(page["instances"]) < limit:
                return ids
            offset += limit

    def holdings(self, instance_id):
        query = urllib.parse.quote(f"instanceId=={instance_id}")
        return self.get(f"/holdings-storage/holdings?query={query}&limit=1000")["holdingsRecords"]

    def items(self, holdings_id):
        query = urllib.parse.quote(f"holdingsRecordId=={holdings_id}")
        return self.get(f"/item-storage/items?query={query}&limit=1000")["items"]

    def items_of_instance(self, instance_id):
        return [item for h in self.holdings(instance_id) for item in self.items(h["id"])]


class Harvester(Sickle):
    """Sickle, with the edge API key on every request. Sickle sends a list's arguments
    only on its first request: a resumption request carries `verb` and
    `resumptionToken` alone, so a key given as an argument to ListRecords would be
    lost after the first page. Every response is also checked: HTTP 200, text/xml and
    well-formed (Sickle's own parser recovers from broken XML silently)."""

    def __init__(self, endpoint, key, **kwargs):
        super().__init__(endpoint, timeout=120, **kwargs)
        self.key = key
        self.responses = []  # (time received, responseDate, completeListSize or None)

    def harvest(self, **kwargs):
        kwargs["apikey"] = self.key
        response = super().harvest(**kwargs)
        http = response.http_response
        if http.status_code != 200 or not http.headers.get("content-type", "").startswith(
            "text/xml"
        ):
            raise RuntimeError(f"{kwargs.get('verb')}: HTTP {http.status_code}, {http.headers}")
        try:
            root = ET.fromstring(http.content)
        except ET.ParseError as e:
            raise RuntimeError(f"{kwargs}: the response is not well-formed XML: {e}") from e
        token = root.find(f".//{q('resumptionToken')}")
        size = token.get("completeListSize") if token is not None else None
        self.responses.append((time.time(), root.findtext(q("responseDate")), size))
        return response


def harvest(harvester, verb, **arguments):
    """A whole list through Sickle: [(instance id, deleted, datestamp, record or None)]
    and the seconds it took."""
    started = time.time()
    items = getattr(harvester, verb)(**arguments)
    out = []
    for item in items:
        header = item.header if verb == "ListRecords" else item
        out.append((instance_of(header.identifier), header.deleted, header.datestamp, item))
    return out, time.time() - started


# Set in main. FOLIO's form: oai:<host of the base URL, without port>:<tenant>/<uuid>
# (mod-oai-pmh's Request.getIdentifierPrefix takes java.net.URL.getHost()).
IDENTIFIER = None
# Any oai:<something>:<tenant>/<uuid>, so that the other checks go on when the
# identifiers' form is wrong.
LENIENT_IDENTIFIER = None
identifiers = {}  # instance id -> identifier as harvested
malformed = set()


def instance_of(identifier):
    identifier = identifier or ""
    if not IDENTIFIER.match(identifier):
        malformed.add(identifier)
    m = LENIENT_IDENTIFIER.match(identifier)
    if not m:
        return identifier
    identifiers[m.group(1)] = identifier
    return m.group(1)


def check_exactly_once(name, harvested, expected, deleted):
    """A full harvest without concurrent writes: every expected instance once, the
    deleted ones as deleted headers, nothing else, datestamps of second granularity."""
    counts = Counter(i for i, _, _, _ in harvested)
    check(
        not [i for i in expected if counts[i] != 1],
        f"{name}: instances not harvested exactly once: "
        + show(f"{i} x{counts[i]}" for i in expected if counts[i] != 1),
    )
    check(
        not set(counts) - set(expected),
        f"{name}: unknown instances harvested: {show(set(counts) - set(expected))}",
    )
    status = {i: d for i, d, _, _ in harvested}
    check(
        all(status.get(i) for i in deleted),
        f"{name}: deleted instances without a deleted header: "
        + show(i for i in deleted if not status.get(i)),
    )
    check(
        all(DATESTAMP.match(ds or "") for _, _, ds, _ in harvested),
        f"{name}: datestamps not YYYY-MM-DDThh:mm:ssZ: "
        + show({ds for _, _, ds, _ in harvested if not DATESTAMP.match(ds or "")}),
    )
    return status


def marc_fields(record_xml, tag):
    """The subfields of each datafield `tag` of a record: [{code: text}]."""
    root = ET.fromstring(record_xml)
    out = []
    for field in root.iter(f"{{{MARC_NS}}}datafield"):
        if field.get("tag") == tag:
            subfields = {}
            for subfield in field.findall(f"{{{MARC_NS}}}subfield"):
                code = subfield.get("code")
                if code in subfields:
                    check(False, f"{tag} with subfield ${code} twice: {record_xml[:300]}")
                subfields[code] = subfield.text or ""
            out.append(subfields)
    return out


# -- the concurrent writer -------------------------------------------------------------


class Writer(threading.Thread):
    """Changes the title of `changed` and deletes `deleted` (items first, then holdings,
    then the instance: Quire, as FOLIO's storage modules, refuses to delete an instance
    that holdings refer to, or holdings that items refer to)."""

    def __init__(self, api, changed, deleted):
        super().__init__(name="writer")
        self.api = api
        self.changed = changed
        self.deleted = deleted
        self.titles = {}
        self.started_at = self.ended_at = None
        self.refused = None  # what DELETE of an instance with holdings answered
        self.error = None

    def run(self):
        try:
            self.started_at = time.time()
            changes = [("change", i) for i in self.changed] + [("delete", i) for i in self.deleted]
            rng.shuffle(changes)
            for kind, instance_id in changes:
                if kind == "change":
                    self.change(instance_id)
                else:
                    self.delete(instance_id)
            self.ended_at = time.time()
        except Exception as e:  # reported by the main thread
            self.error = e

    def change(self, instance_id):
        path = f"/instance-storage/instances/{instance_id}"
        instance = self.api.get(path)
        title = f"{instance['title']} [changed while harvested {instance_id[:8]}]"
        instance["title"] = title
        self.api.must("PUT", path, instance)
        self.titles[instance_id] = title

    def delete(self, instance_id):
        holdings = self.api.holdings(instance_id)
        if holdings and self.refused is None:
            self.refused = self.api.call("DELETE", f"/instance-storage/instances/{instance_id}")
        for h in holdings:
            for item in self.api.items(h["id"]):
                self.api.must("DELETE", f"/item-storage/items/{item['id']}")
            self.api.must("DELETE", f"/holdings-storage/holdings/{h['id']}")
        self.api.must("DELETE", f"/instance-storage/instances/{instance_id}")


# -- raw responses and schemas ---------------------------------------------------------


def load_schema():
    """OAI-PMH.xsd with the record schemas its `<any processContents="strict">` wants,
    all from the local copies: `allow="local"` refuses any remote schema."""
    locations = [
        (MARC_NS, str(SCHEMAS / "MARC21slim.xsd")),
        (OAI_DC_NS, str(SCHEMAS / "oai_dc.xsd")),
        (OAI_ID_NS, str(SCHEMAS / "oai-identifier.xsd")),
    ]
    schema = xmlschema.XMLSchema(str(SCHEMAS / "OAI-PMH.xsd"), locations=locations, allow="local")
    for namespace in (OAI_NS, MARC_NS, OAI_DC_NS, DC_NS, OAI_ID_NS):
        if namespace not in schema.maps.namespaces:
            raise SystemExit(f"schema for {namespace} not loaded from {SCHEMAS}")
    return schema


class Raw:
    """OAI-PMH requests through urllib, each response validated."""

    def __init__(self, base, key, schema):
        self.endpoint = base + "/oai"
        self.key = key
        self.schema = schema
        self.n_validated = 0

    def fetch(self, params, method="GET", headers=None):
        params = dict(params)
        params["apikey"] = self.key
        body = urllib.parse.urlencode(params)
        if method == "GET":
            request = urllib.request.Request(f"{self.endpoint}?{body}", headers=headers or {})
        else:
            request = urllib.request.Request(
                self.endpoint,
                data=body.encode(),
                headers={"Content-Type": "application/x-www-form-urlencoded", **(headers or {})},
                method="POST",
            )
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()

    def validate(self, what, params, method="GET", headers=None):
        """One request: HTTP 200, text/xml, well-formed, valid. The root, or None."""
        status, content_type, body = self.fetch(params, method, headers)
        check.equal(status, 200, f"{what}: HTTP status")
        check(content_type.startswith("text/xml"), f"{what}: Content-Type {content_type!r}")
        try:
            root = ET.fromstring(body)
        except ET.ParseError as e:
            check(False, f"{what}: not well-formed XML ({e}): {body[:500]!r}")
            return None, body
        errors = list(self.schema.iter_errors(root))
        self.n_validated += 1
        check(
            not errors,
            f"{what}: {len(errors)} schema errors, the first: "
            + (str(errors[0])[:1500] if errors else ""),
        )
        check(
            DATESTAMP.match(root.findtext(q("responseDate")) or ""),
            f"{what}: responseDate {root.findtext(q('responseDate'))!r}",
        )
        return root, body

    def list(self, what, params, pages=None, method="GET"):
        """A list's pages, each validated, up to `pages`: its instance ids (with
        deleted flags) in order. Checks the flow control: cursor, completeListSize and
        the empty token of the last page."""
        verb = params["verb"]
        element = "record" if verb == "ListRecords" else "header"
        ids, n_page, size = [], 0, None
        content = {"oai_dc": f"{{{OAI_DC_NS}}}dc"}.get(params.get("metadataPrefix"), f"{{{MARC_NS}}}record")
        while True:
            root, _ = self.validate(f"{what} page {n_page + 1}", params, method)
            if root is None:
                return ids
            n_page += 1
            list_element = root.find(q(verb))
            check(list_element is not None, f"{what} page {n_page}: no {verb} element")
            if list_element is None:
                return ids
            before = len(ids)
            bad_datestamps, bad_metadata = [], []
            for child in list_element.findall(q(element)):
                header = child if element == "header" else child.find(q("header"))
                ids.append((instance_of(header.findtext(q("identifier"))), header.get("status") == "deleted"))
                if not DATESTAMP.match(header.findtext(q("datestamp")) or ""):
                    bad_datestamps.append(header.findtext(q("datestamp")))
                if element == "record":
                    metadata = child.find(q("metadata"))
                    if header.get("status") == "deleted":
                        ok = metadata is None
                    else:
                        ok = metadata is not None and [m.tag for m in metadata] == [content]
                    if not ok:
                        bad_metadata.append(header.findtext(q("identifier")))
            check(not bad_datestamps, f"{what} page {n_page}: datestamps {show(bad_datestamps)}")
            check(
                not bad_metadata,
                f"{what} page {n_page}: records whose metadata is not one {content} "
                f"(or, deleted, has metadata): {show(bad_metadata)}",
            )
            token = list_element.find(q("resumptionToken"))
            if token is None:
                check(n_page == 1, f"{what} page {n_page}: no resumptionToken in a resumed list")
                return ids
            if token.get("cursor") is not None:  # optional in the protocol
                check.equal(int(token.get("cursor")), before, f"{what} page {n_page}: cursor")
            if token.get("completeListSize"):
                size = size or token.get("completeListSize")
                check.equal(token.get("completeListSize"), size, f"{what}: completeListSize")
            if not (token.text or "").strip():
                check(not size or int(size) == len(ids), f"{what}: {len(ids)} records, completeListSize {size}")
                return ids
            if pages and n_page >= pages:
                return ids
            params = {"verb": verb, "resumptionToken": token.text}


def schema_can_fail(schema, marc_page, dc_page):
    """The validator rejects what it must: a broken envelope, MARC record and DC record
    (so that a clean result means something)."""
    broken = {
        "envelope without responseDate": re.sub(rb"<responseDate>[^<]*</responseDate>", b"", marc_page),
        "MARC tag of two digits": marc_page.replace(b'tag="245"', b'tag="24"', 1),
        "MARC element unknown": marc_page.replace(b"</leader>", b"</leader><junk/>", 1),
        "DC element unknown": dc_page.replace(b"<dc:title>", b"<dc:junk>", 1).replace(
            b"</dc:title>", b"</dc:junk>", 1
        ),
    }
    for what, body in broken.items():
        check(
            any(True for _ in schema.iter_errors(ET.fromstring(body))),
            f"the validator accepts a response with a {what}",
        )


LIST = {"verb": "ListRecords", "metadataPrefix": "marc21"}
GET = {"verb": "GetRecord", "metadataPrefix": "marc21"}
ERROR_CASES = [
    # (what, arguments, error code); TOKEN and UNKNOWN are filled in when run.
    ("verb=junk", {"verb": "junk"}, "badVerb"),
    ("no verb", {}, "badVerb"),
    ("ListRecords without metadataPrefix", {"verb": "ListRecords"}, "badArgument"),
    ("GetRecord without identifier", GET, "badArgument"),
    ("from=junk", {**LIST, "from": "junk"}, "badArgument"),
    ("until=junk", {**LIST, "until": "junk"}, "badArgument"),
    ("resumptionToken=junk", {"verb": "ListRecords", "resumptionToken": "junk"}, "badResumptionToken"),
    ("resumptionToken with metadataPrefix", {**LIST, "resumptionToken": "TOKEN"}, "badArgument"),
    ("mixed granularities", {**LIST, "from": "2002-02-05", "until": "2002-02-06T05:35:00Z"}, "badArgument"),
    ("from after until", {**LIST, "from": "2002-02-07", "until": "2002-02-06"}, "badArgument"),
    ("unknown metadataPrefix", {**LIST, "metadataPrefix": "mods"}, "cannotDisseminateFormat"),
    ("unknown identifier", {**GET, "identifier": "UNKNOWN"}, "idDoesNotExist"),
    ("until=1969-12-31", {**LIST, "until": "1969-12-31"}, "noRecordsMatch"),
    ("set=nosuchset", {**LIST, "set": "nosuchset"}, "noRecordsMatch"),
    ("hostile identifier", {**GET, "identifier": 'invalid"id<x>'}, "badArgument"),
]


def error_cases(raw, base, token, unknown_identifier):
    for what, params, code in ERROR_CASES:
        params = {
            k: {"TOKEN": token, "UNKNOWN": unknown_identifier}.get(v, v) for k, v in params.items()
        }
        root, body = raw.validate(f"error case {what}", params)
        if root is None:
            continue
        errors = root.findall(q("error"))
        check.equal([e.get("code") for e in errors], [code], f"error case {what}: error codes")
        request = root.find(q("request"))
        check.equal(request.text, base + "/oai", f"error case {what}: request URL")
        # The protocol: no arguments echoed for badVerb and badArgument; all of them
        # (but the edge's key) otherwise.
        echoed = {} if code in ("badVerb", "badArgument") else params
        check.equal(dict(request.attrib), echoed, f"error case {what}: echoed arguments")
        if what == "hostile identifier":
            for fragment in (b'invalid"id', b"invalid&quot;id", b"id<x>", b"&lt;x&gt;", b"&lt;x>"):
                check(fragment not in body, f"hostile identifier echoed as {fragment!r}: {body[:600]!r}")


# -- the test ----------------------------------------------------------------------------


def main():
    global IDENTIFIER, LENIENT_IDENTIFIER
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    base, key, tenant, password = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3], sys.argv[4]
    host = urllib.parse.urlparse(base).hostname
    IDENTIFIER = re.compile(rf"^oai:{re.escape(host)}:{re.escape(tenant)}/([0-9a-f-]{{36}})$")
    LENIENT_IDENTIFIER = re.compile(rf"^oai:.+:{re.escape(tenant)}/([0-9a-f-]{{36}})$")
    started = time.time()
    timings, counts = {}, {}
    api = Api(base, tenant, password)
    schema = load_schema()

    before = api.instance_ids()
    log(f"{len(before)} instances before the harvest")

    # 1. The first harvest, with writes alongside.
    harvester = Harvester(base + "/oai", key)
    t0 = time.time()
    records = harvester.ListRecords(metadataPrefix="marc21")
    first_response_date = records.oai_response.xml.findtext(q("responseDate"))
    # The instances to change and delete: some the first page has sent (the harvest
    # has them as they were), the others anywhere (most of them the harvest has not
    # reached when they change); both SRS MARC and FOLIO-sourced ones (whose MARC is
    # made from the instance, so that the new title shows in the 245).
    page_one = set()
    for header in ET.fromstring(records.oai_response.http_response.content).iter(q("header")):
        m = LENIENT_IDENTIFIER.match(header.findtext(q("identifier")) or "")
        if m and header.get("status") != "deleted" and m.group(1) in before:
            page_one.add(m.group(1))
    page_one = sorted(page_one)
    on_page_one = rng.sample(page_one, 15)
    by_source = {
        s: sorted(i for i, src in before.items() if src == s and i not in on_page_one)
        for s in ("MARC", "FOLIO")
    }
    changed = on_page_one[:10] + rng.sample(by_source["FOLIO"], 10)
    changed += rng.sample(by_source["MARC"], N_CHANGED - len(changed))
    deleted = on_page_one[10:] + rng.sample(sorted(set(by_source["FOLIO"]) - set(changed)), 5)
    deleted += rng.sample(sorted(set(by_source["MARC"]) - set(changed)), N_DELETED - len(deleted))
    touched = set(changed) | set(deleted)
    writer = Writer(api, changed, deleted)
    writer.start()
    first = []
    for record in records:
        first.append((instance_of(record.header.identifier), record.header.deleted))
    harvest_end = harvester.responses[-1][0]
    writer.join()
    timings["marc21 (GET, with writes)"] = time.time() - t0
    counts["marc21 (GET, with writes)"] = len(first)
    if writer.error:
        raise SystemExit(f"the writer failed: {writer.error}")
    log(
        f"first harvest: {len(first)} records in {len(harvester.responses)} responses, "
        f"{timings['marc21 (GET, with writes)']:.1f} s; writes "
        f"{writer.started_at - t0:.1f}..{writer.ended_at - t0:.1f} s after its start"
    )
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03}Z"
    log(f"changed: {' '.join(changed)}")
    log(f"deleted: {' '.join(deleted)}")
    log(f"writes from {iso(writer.started_at)} to {iso(writer.ended_at)}; harvest from {first_response_date}")
    check(
        writer.ended_at < harvest_end,
        f"the writes ({writer.ended_at - t0:.1f} s) did not end before the harvest's last "
        f"page ({harvest_end - t0:.1f} s): the test did not exercise concurrency",
    )
    status, text, _ = writer.refused or (None, "", None)
    check(
        status in (400, 409, 422) and "record_in_use" in text,
        "DELETE of an instance with holdings: expected a refusal (record_in_use), "
        f"got {status} {text[:200]}",
    )

    counts_first = Counter(i for i, _ in first)
    untouched = set(before) - touched
    check(
        not [i for i in untouched if counts_first[i] != 1],
        "first harvest: untouched instances not harvested exactly once: "
        + show(f"{i} x{counts_first[i]}" for i in untouched if counts_first[i] != 1),
    )
    # Instances deleted before the test (none in a fresh tenant) are deleted headers for
    # ever; nothing else may be harvested that the API did not list.
    tombstones = {i for i, d in first if d and i not in before}
    check(
        not set(counts_first) - set(before) - tombstones,
        "first harvest: live records of instances the API did not list: "
        + show(set(counts_first) - set(before) - tombstones),
    )
    # A touched instance may be sent before its change, after it (when its new datestamp
    # is still within the harvest's end), both, or, when it changes before the harvest
    # reaches it and its new datestamp is past the end, not at all: the protocol lets a
    # list leave out records changed while it is harvested; the incremental harvest has
    # them.
    check(
        all(counts_first[i] <= 2 for i in touched),
        "first harvest: touched instances more than twice: "
        + show(f"{i} x{counts_first[i]}" for i in touched if counts_first[i] > 2),
    )
    check(
        all(counts_first[i] >= 1 for i in on_page_one),
        "first harvest: instances sent on its first page and touched later are missing: "
        + show(i for i in on_page_one if counts_first[i] < 1),
    )
    first_deleted = {i for i, d in first if d}
    touched_counts = {
        "changed": Counter(counts_first[i] for i in changed),
        "deleted": Counter(counts_first[i] for i in deleted),
    }
    log(f"first harvest: touched instances by times harvested: {touched_counts}")

    # 2. The incremental harvest from the first one's responseDate.
    t0 = time.time()
    since_first = {"metadataPrefix": "marc21", "from": first_response_date}
    incremental, _ = harvest(harvester, "ListRecords", **since_first)
    timings["marc21 incremental (GET)"] = time.time() - t0
    counts["marc21 incremental (GET)"] = len(incremental)
    since = {i: (d, ds, r) for i, d, ds, r in incremental}
    check.equal(len(since), len(incremental), "incremental harvest: instances listed once")
    check(
        all(i in since and not since[i][0] for i in changed),
        "incremental harvest: changed instances missing or deleted: "
        + show(i for i in changed if i not in since or since[i][0]),
    )
    check(
        all(i in since and since[i][0] for i in deleted),
        "incremental harvest: deleted instances missing or not deleted: "
        + show(i for i in deleted if i not in since or not since[i][0]),
    )
    check(
        set(since) <= touched,
        f"incremental harvest: untouched instances: {show(set(since) - touched)}",
    )
    # A change is stamped with its commit second, never before the harvest's end (the
    # first responseDate) and never after the last write.
    lowest, highest = seconds(first_response_date), int(writer.ended_at) + 1
    outside = [f"{i} {ds}" for i, (_, ds, _) in since.items() if not lowest <= seconds(ds) <= highest]
    check(
        not outside,
        f"incremental harvest: datestamps outside {first_response_date}..{highest}: {show(outside)}",
    )
    for instance_id in changed:
        if before[instance_id] == "FOLIO" and instance_id in since and not since[instance_id][0]:
            titles = [f.get("a") for f in marc_fields(since[instance_id][2].raw, "245")]
            check.equal(titles, [writer.titles[instance_id]], f"245 $a of changed {instance_id}")
    for instance_id in deleted:
        # The identifier as harvested: what a harvester asks for.
        try:
            record = harvester.GetRecord(identifier=identifiers[instance_id], metadataPrefix="marc21")
        except Exception as e:
            check(False, f"GetRecord identifier={identifiers[instance_id]}: {type(e).__name__}: {e}")
            continue
        check(
            record.deleted and record.xml.find(q("metadata")) is None,
            f"GetRecord of deleted {instance_id}: not a deleted header: {record.raw[:300]}",
        )

    # Items of 30 untouched instances for the 952s; a few given a temporary loan type
    # and location, so that $p must be the temporary one.
    sample, without_items = [], []
    # Live records only: generated data has instances whose MARC record is deleted.
    live = sorted(untouched - first_deleted)
    for instance_id in rng.sample(live, len(live)):
        if len(sample) == N_952_INSTANCES:
            break
        (sample if api.items_of_instance(instance_id) else without_items).append(instance_id)
    loan_types = api.get("/loan-types?limit=1000")["loantypes"]
    locations = api.get("/locations?limit=1000")["locations"]
    for instance_id in sample[:N_TEMPORARY_LOAN_TYPES]:
        item = api.items_of_instance(instance_id)[0]
        item = api.get(f"/item-storage/items/{item['id']}")
        item["temporaryLoanTypeId"] = next(
            t["id"] for t in loan_types if t["id"] != item["permanentLoanTypeId"]
        )
        item["temporaryLocationId"] = next(
            loc["id"] for loc in locations if loc["id"] != item.get("effectiveLocationId")
        )
        api.must("PUT", f"/item-storage/items/{item['id']}", item)

    # 3. Full harvests after the writes.
    after = api.instance_ids()
    check(not set(after) & set(deleted), "the API still has deleted instances")
    gone = set(deleted) | tombstones
    expected = set(after) | gone
    t0 = time.time()
    listed, _ = harvest(harvester, "ListIdentifiers", metadataPrefix="marc21")
    timings["ListIdentifiers (GET)"] = time.time() - t0
    counts["ListIdentifiers (GET)"] = len(listed)
    status = check_exactly_once("ListIdentifiers", listed, expected, gone)
    check(
        {i for i in untouched if status.get(i)} == first_deleted & untouched,
        "ListIdentifiers: untouched instances deleted differently than in the first harvest: "
        + show({i for i in untouched if status.get(i)} ^ (first_deleted & untouched)),
    )

    t0 = time.time()
    holdings_records, _ = harvest(harvester, "ListRecords", metadataPrefix="marc21_withholdings")
    timings["marc21_withholdings (GET)"] = time.time() - t0
    counts["marc21_withholdings (GET)"] = len(holdings_records)
    check_exactly_once("marc21_withholdings", holdings_records, expected, gone)
    by_id = {i: r for i, d, _, r in holdings_records if not d}

    # 4. The 952s against the items.
    n_items = n_temporary = 0
    for instance_id in sample + without_items:
        fields = marc_fields(by_id[instance_id].raw, "952") if instance_id in by_id else None
        if not check(fields is not None, f"952: no live marc21_withholdings record of {instance_id}"):
            continue
        items = api.items_of_instance(instance_id)
        check.equal(len(fields), len(items), f"952: fields of {instance_id} (one per item)")
        by_barcode = {f.get("m"): f for f in fields}
        for item in items:
            n_items += 1
            field = by_barcode.get(item.get("barcode"))
            if not check(field is not None, f"952 of {instance_id}: no $m {item.get('barcode')}"):
                continue
            location = api.reference(f"/locations/{item['effectiveLocationId']}")
            loan_type = item.get("temporaryLoanTypeId") or item["permanentLoanTypeId"]
            n_temporary += bool(item.get("temporaryLoanTypeId"))
            call_number = item.get("effectiveCallNumberComponents") or {}
            want = {
                "a": api.reference(f"/location-units/institutions/{location['institutionId']}")["name"],
                "b": api.reference(f"/location-units/campuses/{location['campusId']}")["name"],
                "c": api.reference(f"/location-units/libraries/{location['libraryId']}")["name"],
                "d": location.get("discoveryDisplayName") or location["name"],
                "e": call_number.get("callNumber"),
                "i": api.reference(f"/material-types/{item['materialTypeId']}")["name"],
                "m": item.get("barcode"),
                "n": item.get("copyNumber"),
                "p": api.reference(f"/loan-types/{loan_type}")["name"],
                "s": location["name"],
                "t": "1" if item.get("discoverySuppress") else "0",
            }
            for code, value in want.items():
                check.equal(field.get(code), value or None, f"952 ${code} of item {item['id']}")
    check(
        n_temporary >= N_TEMPORARY_LOAN_TYPES,
        f"952: only {n_temporary} items with a temporary loan type were compared",
    )
    log(
        f"952: {n_items} items of {len(sample)} instances compared "
        f"({n_temporary} with a temporary loan type; {len(without_items)} instances without items)"
    )

    t0 = time.time()
    post = Harvester(base + "/oai", key, http_method="POST")
    dc_records, _ = harvest(post, "ListRecords", metadataPrefix="oai_dc")
    timings["oai_dc (POST)"] = time.time() - t0
    counts["oai_dc (POST)"] = len(dc_records)
    check_exactly_once("oai_dc", dc_records, expected, gone)
    check.equal(
        post.responses[0][2], str(len(dc_records)), "oai_dc: completeListSize of the first page"
    )
    check(len(post.responses) > 1, "oai_dc: harvested in one response (no flow control exercised)")

    # 5. Raw responses, validated.
    raw = Raw(base, key, schema)
    t0 = time.time()
    lists = {p: {"verb": "ListRecords", "metadataPrefix": p} for p in ("marc21", "marc21_withholdings", "oai_dc")}
    schema_can_fail(schema, raw.fetch(lists["marc21"])[2], raw.fetch(lists["oai_dc"])[2])
    ids = raw.list("raw marc21", lists["marc21"])
    timings["marc21 (GET, raw, validated)"] = time.time() - t0
    counts["marc21 (GET, raw, validated)"] = len(ids)
    harvested = [(i, d, "2000-01-01T00:00:00Z", None) for i, d in ids]
    check_exactly_once("raw marc21", harvested, expected, gone)
    raw.list("raw marc21_withholdings", lists["marc21_withholdings"], PAGES_OF_OTHER_FORMATS)
    raw.list("raw oai_dc (POST)", lists["oai_dc"], PAGES_OF_OTHER_FORMATS, method="POST")
    raw.list("raw ListIdentifiers", {"verb": "ListIdentifiers", "metadataPrefix": "oai_dc"}, 5)
    raw.list("raw incremental", {**lists["marc21_withholdings"], "from": first_response_date})
    for params in (
        {"verb": "Identify"},
        {"verb": "ListSets"},
        {"verb": "ListMetadataFormats"},
        {"verb": "ListMetadataFormats", "identifier": identifiers[sample[0]]},
    ):
        raw.validate(params["verb"], params)
    # With a domain name as the host, Identify describes the identifiers (oai-identifier).
    domain = {"Host": "quire.example.org"}
    root, _ = raw.validate("Identify as quire.example.org", {"verb": "Identify"}, headers=domain)
    check(
        root is not None and root.find(f".//{{{OAI_ID_NS}}}oai-identifier") is not None,
        "Identify with a domain name: no oai-identifier description",
    )
    for prefix in ("marc21", "marc21_withholdings", "oai_dc"):
        for instance_id in (sample[0], deleted[0]):
            params = {"verb": "GetRecord", "metadataPrefix": prefix, "identifier": identifiers[instance_id]}
            what = f"GetRecord {prefix} {params['identifier']}"
            root, _ = raw.validate(what, params)
            header = None if root is None else root.find(f"{q('GetRecord')}/{q('record')}/{q('header')}")
            if check(header is not None, f"{what}: no record"):
                check.equal(header.get("status") == "deleted", instance_id in deleted, f"{what}: deleted")

    # 6. Errors.
    token_page = ET.fromstring(raw.fetch({"verb": "ListRecords", "metadataPrefix": "marc21"})[2])
    token = token_page.findtext(f".//{q('resumptionToken')}")
    error_cases(raw, base, token, f"oai:{host}:{tenant}/{uuid.uuid4()}")
    timings["raw responses (validated)"] = time.time() - t0
    check(
        not malformed,
        f"{len(malformed)} identifiers not in FOLIO's form oai:{host}:{tenant}/<uuid>, e.g. "
        + show(malformed, 3),
    )
    log(f"{raw.n_validated} raw responses validated in {timings['raw responses (validated)']:.1f} s")

    print("\nOAI-PMH harvest test")
    for name, n in counts.items():
        took = f"{timings[name]:6.1f} s" if name in timings else ""
        print(f"  {name:34} {n:6} records {took}")
    print(
        f"  touched while harvested: {len(changed)} changed, {len(deleted)} deleted; the first "
        f"harvest sent them {sorted(touched_counts['changed'].items())} and "
        f"{sorted(touched_counts['deleted'].items())} times (times, instances)"
    )
    print(f"  {raw.n_validated} responses schema-validated")
    print(f"  {check.passed} checks passed, {len(check.failed)} failed")
    print(f"  {time.time() - started:.1f} s")
    if check.failed:
        print(f"\n{len(check.failed)} checks failed:", file=sys.stderr)
        for what in check.failed[:50]:
            print(f"  {what}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
