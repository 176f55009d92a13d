package textstat

import "testing"

func TestWordFreq(t *testing.T) {
	got := WordFreq("the cat The  hat\tcat")
	want := map[string]int{"the": 2, "cat": 2, "hat": 1}
	if len(got) != len(want) {
		t.Fatalf("WordFreq = %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("WordFreq[%q] = %d, want %d", k, got[k], v)
		}
	}
	if len(WordFreq("")) != 0 {
		t.Error("WordFreq(\"\") not empty")
	}
}
