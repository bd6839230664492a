"""Publishing: what report, compare and export write, the HTML report, its charts and the dashboard."""
