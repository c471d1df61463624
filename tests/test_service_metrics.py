"""GET /metrics scraped and parsed as Prometheus would, over the real middleware."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import threading
import time

import httpx
import pytest
from fastapi.testclient import TestClient

from openclaw_memory.maintain.runner import MaintenanceScheduler
from openclaw_memory.middleware import MemoryMiddleware
from openclaw_memory.service.app import create_app
from openclaw_memory.service.installer import PLUGIN_DIR
from openclaw_memory.service.server import build_server
from openclaw_memory.types import Scope

TOKEN = "metrics-token"
AUTH = {"authorization": f"Bearer {TOKEN}"}
ALICE = {"user_id": "alice", "agent_id": "main"}

_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)')


def parse(text: str) -> dict[tuple[str, frozenset], float]:
    """The text exposition format, strictly: every sample of a declared family, each family
    declared once, labels well formed, values numbers. (name, labels) -> value."""
    types: dict[str, str] = {}
    samples: dict[tuple[str, frozenset], float] = {}
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert name not in types and kind in ("counter", "gauge", "histogram", "summary")
            types[name] = kind
            continue
        match = _SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, labels, value = match.groups()
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        assert family in types, f"{name} has no # TYPE line"
        pairs = _LABEL.findall(labels or "")
        assert ",".join(f'{k}="{v}"' for k, v in pairs) == (labels or ""), line
        key = (name, frozenset(pairs))
        assert key not in samples, f"duplicate sample {line!r}"
        samples[key] = float(value)
    return samples


def value(samples, name: str, **labels) -> float:
    return samples[(name, frozenset(labels.items()))]


@pytest.fixture
def mw(tmp_path):
    m = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path), "embedding_model": "hash"}}
    )
    yield m
    m.close()


@pytest.fixture
def client(mw):
    with TestClient(create_app(mw, token=TOKEN), base_url="http://127.0.0.1") as c:
        yield c


def scrape(client) -> dict:
    resp = client.get("/metrics", headers=AUTH)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/plain; version=0.0.4")
    return parse(resp.text)


def test_metrics_need_the_token(client):
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", headers={"authorization": "Bearer wrong"}).status_code == 401


def test_requests_are_counted_by_route_template_and_status_with_latency(client):
    for prompt in ("where do I live?", "我住在哪里？"):
        body = {"scope": ALICE, "session_id": "s1", "prompt": prompt}
        assert client.post("/v1/recall", json=body, headers=AUTH).status_code == 200
    assert client.post("/v1/recall", json={"scope": ALICE}, headers=AUTH).status_code == 422
    assert client.post("/v1/recall", json={}).status_code == 401  # refused by the guard
    assert client.get("/v1/no/such/route/x123", headers=AUTH).status_code == 404
    client.get("/metrics")  # 401

    samples = scrape(client)
    requests = "openclaw_memory_http_requests_total"
    assert value(samples, requests, route="/v1/recall", method="POST", status="200") == 2
    assert value(samples, requests, route="/v1/recall", method="POST", status="422") == 1
    assert value(samples, requests, route="/v1/recall", method="POST", status="401") == 1
    assert value(samples, requests, route="/metrics", method="GET", status="401") == 1
    assert value(samples, requests, route="other", method="GET", status="404") == 1
    assert not any("x123" in str(labels) for _, labels in samples)  # raw paths never label

    hist = "openclaw_memory_http_request_duration_seconds"
    buckets = sorted(
        (float(dict(labels)["le"]), v)
        for (name, labels), v in samples.items()
        if name == f"{hist}_bucket" and dict(labels)["route"] == "/v1/recall"
    )
    counts = [v for _, v in buckets]
    assert counts == sorted(counts) and buckets[-1][0] == float("inf")  # cumulative, up to +Inf
    assert counts[-1] == value(samples, f"{hist}_count", route="/v1/recall") == 4
    assert 0 < value(samples, f"{hist}_sum", route="/v1/recall") < 60


def test_queue_depth_index_and_version_gauges(client, mw):
    body = {
        "scope": ALICE,
        "session_id": "s1",
        "messages": [{"role": "user", "content": "I live in Boston"}],
    }
    assert client.post("/v1/capture", json=body, headers=AUTH).status_code == 202
    samples = scrape(client)
    assert value(samples, "openclaw_memory_capture_queue_depth") >= 0
    assert value(samples, "openclaw_memory_index_pending") >= 0
    mw.flush()
    samples = scrape(client)
    assert value(samples, "openclaw_memory_capture_queue_depth") == 0
    assert value(samples, "openclaw_memory_index_pending") == 0
    live = value(samples, "openclaw_memory_store_records", state="live")
    assert live == 2  # the profile fact and the turn's episode
    mw.forget(Scope("alice", "main"), query="Boston")
    samples = scrape(client)
    assert value(samples, "openclaw_memory_store_records", state="live") < live
    assert value(samples, "openclaw_memory_store_records", state="all") == live
    assert [n for n, _ in samples if n == "openclaw_memory_info"] == ["openclaw_memory_info"]


def test_maintenance_runs_by_trigger_and_outcome_and_the_last_runs_changes(client, mw):
    assert ("openclaw_memory_maintenance_runs", frozenset()) not in scrape(client)
    scheduler = MaintenanceScheduler(mw.maintenance, mw.cfg.maintenance)
    scheduler.run_now("manual")
    scheduler.run_now("manual")
    samples = scrape(client)
    assert value(samples, "openclaw_memory_maintenance_runs", trigger="manual", status="ok") == 2
    jobs = {
        dict(k)["job"] for n, k in samples if n == "openclaw_memory_maintenance_last_run_changes"
    }
    assert jobs  # one sample per job of the run's totals


def test_the_plugins_fail_open_reports_add_up_and_bad_reports_name_the_field(client):
    assert value(scrape(client), "openclaw_memory_plugin_fail_open_total") == 0
    for report in ({"fail_open": 3, "spool_bytes": 2048}, {"fail_open": 2, "spool_bytes": 0}):
        assert client.post("/service/report", json=report, headers=AUTH).status_code == 200
    samples = scrape(client)
    assert value(samples, "openclaw_memory_plugin_fail_open_total") == 5
    assert value(samples, "openclaw_memory_plugin_spool_bytes") == 0
    bad = client.post("/service/report", json={"fail_open": -1}, headers=AUTH)
    assert bad.status_code == 422 and bad.json()["fields"][0]["field"] == "fail_open"
    assert client.post("/service/report", json={"fail_open": 1}).status_code == 401
    assert value(scrape(client), "openclaw_memory_plugin_fail_open_total") == 5


NODE = shutil.which("node")


@pytest.fixture
def served(tmp_path):
    """The real service on a free port, in a thread: (url, middleware)."""
    mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path / "data"), "embedding_model": "hash"}}
    )
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = build_server(create_app(mw, token=TOKEN), host="127.0.0.1", port=port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", mw
    server.should_exit = True
    thread.join(timeout=10)
    mw.close()


@pytest.mark.skipif(NODE is None, reason="node is not on PATH")
def test_the_plugin_reports_the_calls_it_made_without_memory_once_the_service_answers(
    served, tmp_path
):
    url, _ = served
    client_js = json.dumps((PLUGIN_DIR / "client.js").as_uri())
    cfg = {
        "serviceUrl": url,
        "token": TOKEN,
        "spoolDir": str(tmp_path / "spool"),
        "timeoutMs": 5000,
    }
    scope = {"scope": ALICE, "session_id": "s1", "prompt": "我住在哪里？"}
    script = f"""
import {{ createClient }} from {client_js};
let down = 2;  // the network fails twice, as when the service restarts
const flaky = (...args) => down-- > 0 ? Promise.reject(new TypeError("fetch failed")) : fetch(...args);
const logger = {{ warn: () => {{}}, info: () => {{}} }};
const client = createClient({json.dumps(cfg)}, logger, flaky);
const missed = [await client.post("/v1/recall", {json.dumps(scope)}),
                await client.post("/v1/recall", {json.dumps(scope)})];
const answered = await client.post("/v1/recall", {json.dumps(scope)});
await client.lastReport;
console.log(JSON.stringify({{ missed, answered: answered !== null }}));
"""
    proc = subprocess.run(
        [NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "missed": [None, None],
        "answered": True,
    }
    resp = httpx.get(f"{url}/metrics", headers=AUTH)
    samples = parse(resp.text)
    assert value(samples, "openclaw_memory_plugin_fail_open_total") == 2
    assert value(samples, "openclaw_memory_plugin_spool_bytes") == 0
    requests = "openclaw_memory_http_requests_total"
    assert value(samples, requests, route="/service/report", method="POST", status="200") == 1


def test_two_apps_in_one_process_count_apart_and_the_librarys_parser_reads_the_scrape(
    client, tmp_path
):
    from prometheus_client.parser import text_string_to_metric_families

    other_mw = MemoryMiddleware.from_config(
        overrides={"storage": {"data_dir": str(tmp_path / "b"), "embedding_model": "hash"}}
    )
    try:
        with TestClient(create_app(other_mw, token=TOKEN), base_url="http://127.0.0.1") as other:
            body = {"scope": ALICE, "session_id": "s1", "prompt": "where do I live?"}
            assert client.post("/v1/recall", json=body, headers=AUTH).status_code == 200
            requests = "openclaw_memory_http_requests_total"
            recall = {"route": "/v1/recall", "method": "POST", "status": "200"}
            assert value(scrape(client), requests, **recall) == 1
            assert (requests, frozenset(recall.items())) not in scrape(other)
            text = other.get("/metrics", headers=AUTH).text
    finally:
        other_mw.close()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["openclaw_memory_http_requests"].type == "counter"
    assert families["openclaw_memory_http_request_duration_seconds"].type == "histogram"
    assert families["openclaw_memory_store_records"].type == "gauge"
    metrics_get = [
        s
        for s in families["openclaw_memory_http_requests"].samples
        if s.name == requests and s.labels["route"] == "/metrics"
    ]
    assert [s.value for s in metrics_get] == [1.0]  # the first scrape of `other`, counted
