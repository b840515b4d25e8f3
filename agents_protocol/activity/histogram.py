"""Call durations on a fixed logarithmic scale, so the database counts latencies per bucket and
the page reads a median or a 95th percentile off the counts: 8 buckets per doubling, each value
within 4.4% of the bucket's midpoint."""
import math

BUCKETS_PER_DOUBLING = 8


def bucket_of(duration_us):
    return int(math.log2(duration_us) * BUCKETS_PER_DOUBLING) if duration_us >= 1 else 0


def midpoint_us(bucket):
    """The geometric middle of a bucket, the value a percentile falling into it is read as."""
    return 2 ** ((bucket + 0.5) / BUCKETS_PER_DOUBLING)


def percentile_us(counts, fraction):
    """The value under which `fraction` of the calls fall, from {bucket: calls}; None without calls."""
    total = sum(counts.values())
    if not total:
        return None
    wanted, seen = fraction * total, 0
    for bucket in sorted(counts):
        seen += counts[bucket]
        if seen >= wanted:
            return midpoint_us(bucket)
    return midpoint_us(max(counts))
