package textstat

import "testing"

func TestPalindromeCase(t *testing.T) {
	for _, s := range []string{"Racecar", "level", "", "Aa"} {
		if !IsPalindrome(s) {
			t.Errorf("IsPalindrome(%q) = false", s)
		}
	}
	if IsPalindrome("Go") {
		t.Error("IsPalindrome(\"Go\") = true")
	}
}
