package textstat

import "testing"

func TestClamp(t *testing.T) {
	if Clamp(-5, 0, 10) != 0 || Clamp(50, 0, 10) != 10 || Clamp(7, 0, 10) != 7 {
		t.Fatal("Clamp does not clamp")
	}
}
