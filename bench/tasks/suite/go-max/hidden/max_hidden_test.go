package textstat

import "testing"

func TestMax(t *testing.T) {
	if m, err := Max([]int{3, -1, 9, 2}); err != nil || m != 9 {
		t.Fatalf("Max = %d, %v", m, err)
	}
	if m, err := Max([]int{-4, -2}); err != nil || m != -2 {
		t.Fatalf("Max negatives = %d, %v", m, err)
	}
	if _, err := Max(nil); err == nil {
		t.Fatal("Max(nil) gave no error")
	}
}
