package validation

// Worded reports whether the shared table words tag, for the test in
// package validation_test that checks every area's tags.
func Worded(tag string) bool {
	_, ok := messages[tag]
	return ok
}
