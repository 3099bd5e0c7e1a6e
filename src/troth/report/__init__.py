"""Reports of evaluation results."""

from troth.report.page import render_html, write_html

__all__ = ["render_html", "write_html"]
