package crawl

import (
	"strconv"
	"strings"
	"testing"
)

// TestVisibleTextModel: every hiding mechanism of the model, each next to
// a visible control sentence.
func TestVisibleTextModel(t *testing.T) {
	page := `<!doctype html><html><head><style>
.gone{display:none} #ghost{visibility:hidden} p.faint{opacity:0}
.tiny{font-size:0px} .zero{width:0;height:0;overflow:hidden}
.sr{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
.clip{clip:rect(0 0 0 0);position:absolute} .indent{text-indent:-9999px}
.same{color:#fff} .dark{background:#000;color:#000000}
.footer .ai-note{display:none} footer small{color:#fefefe}
.shift{transform:translateX(-10000px)} .dim{opacity:0.01}
@media (max-width:600px){.mobileonly{display:none}}
</style></head><body style="background-color:white">
<p>visible one</p>
<p hidden>H1 hidden attribute</p>
<p aria-hidden="true">H2 aria hidden</p>
<p class="sr-only">H3 framework class</p>
<p style="display: none">H4 inline display</p>
<p class="gone">H5 class rule</p>
<p id="ghost">H6 id rule</p>
<p class="faint">H7 tag.class opacity</p>
<p class="tiny">H8 font size</p>
<div class="zero">H9 zero size</div>
<p class="sr">H10 off screen</p>
<p class="clip">H11 clipped</p>
<p class="indent">H12 text indent</p>
<p class="same">H13 white on white page</p>
<div class="dark">H14 black on black</div>
<p style="color:rgb(255,255,255)">H15 rgb white on white</p>
<div style="display:none"><p>H16 inside hidden parent</p></div>
<!-- H17 comment -->
<div class="footer"><p class="ai-note">H18 descendant rule</p><p>visible four (a footer line)</p></div>
<footer><small>H19 near-white small print</small></footer>
<p class="shift">H20 translated off screen</p>
<p class="dim">H21 almost transparent</p>
<p style="color:rgba(255,255,255,1)">H22 rgba white</p>
<p style="font-size:1px">H23 one pixel</p>
<p style="height:0;overflow:hidden">H24 zero height</p>
<p style="color:#FFF">H25 upper-case white</p>
<p style="font-size:0.9em">visible five (small em)</p>
<p class="mobileonly">visible two (media rules may not apply)</p>
<div style="background:#000"><p style="color:#fff">visible three (white on black)</p></div>
</body></html>`
	got := VisibleText([]byte(page))
	for _, want := range []string{"visible one", "visible two", "visible three", "visible four", "visible five"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q missing from visible text:\n%s", want, got)
		}
	}
	for i := 1; i <= 25; i++ {
		if strings.Contains(got, "H"+strconv.Itoa(i)+" ") {
			t.Errorf("hidden H%d is visible:\n%s", i, got)
		}
	}
}
