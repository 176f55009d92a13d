// Package textstat has small text and number utilities.
package textstat

import "strings"

// Reverse returns s with its characters in reverse order.
func Reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// IsPalindrome reports whether s reads the same both ways, ignoring case.
func IsPalindrome(s string) bool {
	return s == Reverse(s)
}

// Words splits s on whitespace.
func Words(s string) []string {
	return strings.Fields(s)
}
