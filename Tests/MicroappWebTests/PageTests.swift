// The page's tests: written with the page.
