"""The service's Prometheus metrics, in one registry per application.

Counted here: HTTP requests by route, method and status, their latency, refusals (auth,
limits), citations decided by status. Read at scrape time from the session and the job
store: citation checks started and in progress; per source, requests, 429s, retries,
failures, cache hits (counters, as :class:`~verifier.http.stats.SourceStats` holds them),
whether the breaker is open and whether the source is paused (gauges); jobs by state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from verifier.session import Session

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0, 120.0)


class _SessionCollector(Collector):
    def __init__(self, session: Session, jobs: Callable[[], Mapping[str, int]]) -> None:
        self._session = session
        self._jobs = jobs

    def collect(self) -> Iterator[Metric]:
        families = {
            "requests": CounterMetricFamily("verifier_source_requests",
                                            "Requests sent to a source (every attempt)",
                                            labels=["source"]),
            "throttled": CounterMetricFamily("verifier_source_throttled",
                                             "Answers that said too many requests (429)",
                                             labels=["source"]),
            "retries": CounterMetricFamily("verifier_source_retries", "Retries of a request",
                                           labels=["source"]),
            "failures": CounterMetricFamily("verifier_source_failures",
                                            "Requests that failed after their retries",
                                            labels=["source"]),
            "cache_hits": CounterMetricFamily("verifier_source_cache_hits",
                                              "Answers served from the disk cache",
                                              labels=["source"]),
        }
        breaker = GaugeMetricFamily("verifier_source_breaker_open",
                                    "1 while the source's circuit breaker is open",
                                    labels=["source"])
        paused = GaugeMetricFamily("verifier_source_paused",
                                   "1 while the source rests (a 429, a budget, the breaker)",
                                   labels=["source"])
        for name, client in self._session.clients.items():
            stats = client.gate.stats
            for key, family in families.items():
                family.add_metric([name], float(getattr(stats, key)))
            breaker.add_metric([name], 1.0 if client.gate.breaker_open else 0.0)
            paused.add_metric([name], 1.0 if stats.paused else 0.0)
        yield from families.values()
        yield breaker
        yield paused
        run = self._session.stats
        yield CounterMetricFamily("verifier_citations_started",
                                  "Citation checks started (requests and jobs)",
                                  value=float(run.started))
        yield GaugeMetricFamily("verifier_citations_in_progress",
                                "Citation checks started and not yet ended",
                                value=float(run.started - run.finished))
        jobs = GaugeMetricFamily("verifier_jobs", "Jobs by state", labels=["state"])
        for state, count in self._jobs().items():
            jobs.add_metric([state], float(count))
        yield jobs


class Metrics:
    """The registry and the service's own instruments."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("verifier_http_requests", "HTTP requests answered",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("verifier_http_request_duration_seconds",
                                 "Time to answer (to the end of a streamed body)",
                                 ["route"], buckets=LATENCY_BUCKETS, registry=self.registry)
        self.refused = Counter("verifier_http_refused", "Requests refused before any work",
                               ["reason"], registry=self.registry)
        self.citations = Counter("verifier_citations_decided", "Citations decided, by status",
                                 ["status", "via"], registry=self.registry)
        self.jobs_created = Counter("verifier_jobs_created", "Jobs submitted",
                                    registry=self.registry)

    def watch(self, session: Session, jobs: Callable[[], Mapping[str, int]]) -> None:
        self.registry.register(_SessionCollector(session, jobs))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
