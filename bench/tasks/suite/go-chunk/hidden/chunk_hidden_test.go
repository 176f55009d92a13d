package textstat

import "testing"

import "reflect"

func TestChunk(t *testing.T) {
	got := Chunk([]int{1, 2, 3, 4, 5}, 2)
	want := [][]int{{1, 2}, {3, 4}, {5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Chunk = %v", got)
	}
	if Chunk([]int{1}, 0) != nil || len(Chunk(nil, 3)) != 0 {
		t.Fatal("Chunk edge cases")
	}
}
