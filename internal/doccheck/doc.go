// Package doccheck holds the tests that keep the documentation true to the
// tree: the README's architecture lists exactly the top-level folders, the
// top level is the design card's, and every repository path or relative link
// the docs name exists. It has no code of its own.
package doccheck
