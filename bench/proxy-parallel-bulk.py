"""
Python `helpers.parallel_bulk` straight into the engine (baseline) and through the
neardup `_bulk` proxy, in the same run, on the same documents: rate, per-item
statuses and documents stored. `parallel_bulk` does not retry a 429, so any 429 the
proxy answers where the engine alone stores the document shows up as a document lost.

    bash .ci/proxy.sh   # the venv .neardup/venv with opensearch-py and elasticsearch8
    .neardup/venv/bin/python bench/proxy-parallel-bulk.py <engine URL> <proxy URL> <opensearch|elasticsearch> \
        [threads=8] [chunks a thread=2] [chunk size=100] [payload KB=100]

The proxy must deduplicate indices `neardup-bench-pb-*` on field `message`
(NEARDUP_PROXY_INDICES='neardup-bench-pb-*:message'). Each document carries a short
message and a payload of the given size (stored, not indexed), so the bodies in flight
pass NEARDUP_MAX_INFLIGHT_BODY (64 MB) with the defaults.
"""
import collections
import json
import random
import sys
import time
import urllib.request


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as err:
        return json.loads(err.read() or b"{}")


def main():
    engine_url, proxy_url, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    threads, per, chunk, kb = (int(a) for a in (sys.argv[4:] + ["8", "2", "100", "100"][len(sys.argv) - 4:])[:4])
    if kind == "opensearch":
        from opensearchpy import OpenSearch as Client, helpers
    else:
        from elasticsearch8 import Elasticsearch as Client, helpers
    syllables = "ka lo mi ne su ta ri po de gu ha ve zo bi fu ja xe qu wa yo".split()
    vocabulary = ["".join(random.Random(w).choice(syllables) for _ in range(2 + w % 3)) for w in range(5000)]
    payload = "x" * (kb * 1024)
    total = threads * per * chunk
    print(f"{total} documents of about {kb} KB, parallel_bulk with {threads} threads, chunks of {chunk}")
    for label, url, index in (("engine alone (baseline)", engine_url, "neardup-bench-pb-raw"), ("through the proxy", proxy_url, "neardup-bench-pb-dedup")):
        rng = random.Random(1)  # the same documents for both
        call("DELETE", f"{engine_url}/{index}")
        call("PUT", f"{engine_url}/{index}", {"mappings": {"properties": {"payload": {"type": "keyword", "index": False, "doc_values": False}}}})
        actions = ({"_index": index, "_id": f"d{k}", "_source": {"message": " ".join(rng.choice(vocabulary) for _ in range(30)) + f" {k}", "payload": payload}} for k in range(total))
        # 120 s a request (opensearch-py's default is 10 s, elasticsearch8's none): the rate, not the client's patience.
        client = Client(url, timeout=120) if kind == "opensearch" else Client(url, request_timeout=120)
        outcomes = collections.Counter()
        started = time.time()
        for ok, info in helpers.parallel_bulk(client, actions, thread_count=threads, chunk_size=chunk, max_chunk_bytes=512 * 1024 * 1024, raise_on_error=False, raise_on_exception=False):
            item = next(iter(info.values()))
            error = item.get("error")
            outcomes[(item.get("status"), error.get("type") if isinstance(error, dict) else None)] += 1
        seconds = time.time() - started
        call("POST", f"{engine_url}/{index}/_refresh")
        stored = call("GET", f"{engine_url}/{index}/_count").get("count")
        print(f"{label}: {seconds:.1f} s, {total / seconds:.0f} docs/s, statuses {dict(outcomes)}, stored {stored} of {total}")
        call("DELETE", f"{engine_url}/{index}")


if __name__ == "__main__":
    main()
