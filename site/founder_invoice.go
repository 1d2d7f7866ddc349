package site

import (
	"net/http"

	"launchdir/routes"

	"github.com/julienschmidt/httprouter"
)

// The VAT invoice of a paid order as a PDF download in the founder area
// (issue 22); app/commerce issues and draws it, get_invoice serves the same
// invoice through the API.
func (s *Site) mountInvoice(srv *routes.Server) {
	srv.Handle(http.MethodGet, "/me/orders/:number/invoice.pdf", s.guard(false, s.myInvoice))
}

func (s *Site) myInvoice(w http.ResponseWriter, r *http.Request, ps httprouter.Params, uid int64) {
	inv, pdf, err := s.App.Commerce.InvoiceFor(r.Context(), uid, ps.ByName("number"))
	if err != nil {
		s.areaError(w, r, uid, err)
		return
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", `attachment; filename="`+inv.Number+`.pdf"`)
	w.Header().Set("Cache-Control", "private, no-store")
	w.Write(pdf)
}
