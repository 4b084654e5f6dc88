package index

import (
	"testing"

	zapx "github.com/blevesearch/zapx/v17"
)

// TestSegmentsGrowAsTheyFill: once an index is made, zapx no longer grows
// a new segment's buffer to its guess at once (the previous segment's
// bytes per document times the batch's documents plus 100): after one
// hostile note, the guess was 640 MB in one allocation.
func TestSegmentsGrowAsTheyFill(t *testing.T) {
	g, err := createGeneration(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	if zapx.NewSegmentBufferNumResultsFactor != 0 {
		t.Errorf("zapx's segment size guess is on (factor %v)", zapx.NewSegmentBufferNumResultsFactor)
	}
}
