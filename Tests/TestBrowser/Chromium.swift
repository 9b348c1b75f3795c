// The Chromium driver: written with the browser tests.
