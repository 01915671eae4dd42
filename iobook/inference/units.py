"""Bandwidth units. IO500 and IOR print binary units (GiB/s = 2^30 B/s, MiB/s = 2^20 B/s); vendor
slides such as IBM's print GB/s = 10^9 B/s. Comparing the two needs an explicit conversion: 1 GiB/s is
about 7.4 % more than 1 GB/s."""

GIB = 2**30
MIB = 2**20
GB = 10**9


def gib_to_gb(gib_per_s: float) -> float:
    """GiB/s (IO500, IOR) to GB/s (10^9 bytes per second)."""
    return gib_per_s * GIB / GB


def gb_to_gib(gb_per_s: float) -> float:
    """GB/s (10^9 bytes per second) to GiB/s."""
    return gb_per_s * GB / GIB
