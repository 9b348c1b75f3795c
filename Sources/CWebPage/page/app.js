// The page in a browser: written with the page.
