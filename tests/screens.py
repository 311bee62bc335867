"""Screen sizes and screenshots for the browser tests (a module: every test folder has a conftest)."""

from pathlib import Path

# Not test-results/: pytest-playwright empties that folder at the start of every run.
SCREENS = Path(__file__).resolve().parents[1] / "screenshots"
PHONE = {"width": 390, "height": 844}
TV = {"width": 1920, "height": 1080}


def screenshot(page, name: str) -> Path:
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
