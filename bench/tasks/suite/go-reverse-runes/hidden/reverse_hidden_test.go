package textstat

import "testing"

func TestReverseRunes(t *testing.T) {
	cases := map[string]string{"abc": "cba", "héllo": "olléh", "": "", "日本": "本日"}
	for in, want := range cases {
		if got := Reverse(in); got != want {
			t.Errorf("Reverse(%q) = %q, want %q", in, got, want)
		}
	}
}
