"""Reads touchstone-server's /metrics with prometheus-client's text parser (an implementation we
did not write) and checks samples against expectations.

    check-metrics.py URL 'name{label="value",...}=number' ...

Fails (exit 1, saying which) when the Content-Type is not Prometheus text, when the text does not
parse, or when an expected sample is missing or has another value. Prints the families it read.
"""
import re
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main() -> int:
    url, expectations = sys.argv[1], sys.argv[2:]
    with urllib.request.urlopen(url, timeout=5) as response:
        content_type = response.headers.get("Content-Type", "")
        text = response.read().decode("utf-8")
    if not content_type.startswith("text/plain; version=0.0.4"):
        print(f"check-metrics: {url} answered Content-Type {content_type!r}", file=sys.stderr)
        return 1
    samples = {}
    families = []
    try:
        for family in text_string_to_metric_families(text):
            families.append(f"{family.name} ({family.type})")
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    except ValueError as error:
        print(f"check-metrics: prometheus-client cannot parse {url}: {error}", file=sys.stderr)
        return 1
    failed = False
    for expectation in expectations:
        match = re.fullmatch(r"([a-z_]+)(?:\{(.*)\})?=([0-9.]+)", expectation)
        if not match:
            print(f"check-metrics: cannot read the expectation {expectation!r}", file=sys.stderr)
            return 2
        name, labels, value = match.groups()
        pairs = sorted(re.findall(r'([a-z_]+)="([^"]*)"', labels or ""))
        key = name + ("{" + ",".join(f'{k}="{v}"' for k, v in pairs) + "}" if pairs else "")
        if samples.get(key) != float(value):
            print(f"check-metrics: {key} is {samples.get(key)}, expected {value}", file=sys.stderr)
            failed = True
    print(f"check-metrics: prometheus-client read {len(families)} families, {len(samples)} samples: "
          + ", ".join(sorted(set(families))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
