"""Asking the dashboard's app (through Starlette's test client) for a sweep's page as its script does."""

from starlette.testclient import TestClient

from tests.polling import wait_for


def newer_page(client: TestClient, name: str, than: str = "") -> dict:
    """The sweep's page once one of a version other than `than` is made (a busy machine may take over WAIT_S)."""
    def asked() -> dict | None:
        page = client.get(f"/api/sweep/{name}", params={"since": than} if than else {}).json()
        return page if page.get("version") not in ("", than) else None
    return wait_for(asked, 60, f"a new page of {name}")
