"""Maintenance jobs: forgetting (TTL, cap, compaction, cleanup), purge, doctor, reindex."""

from .archive import enforce_cap
from .cleanup import cleanup
from .compaction import Compaction, compact_events, digest
from .doctor import DoctorReport, doctor
from .purge import purge_record, purge_user
from .reindex import reindex
from .runner import MaintenanceReport, run_maintenance
from .ttl import expire

__all__ = [
    "Compaction",
    "DoctorReport",
    "MaintenanceReport",
    "cleanup",
    "compact_events",
    "digest",
    "doctor",
    "enforce_cap",
    "expire",
    "purge_record",
    "purge_user",
    "reindex",
    "run_maintenance",
]
