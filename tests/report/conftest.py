from tests.report.report_run import known_run as known_run

__all__ = ["known_run"]
