package server

// approvalRoutes: pending approvals and deciding them. Not written yet: it answers no route.
func (s *Server) approvalRoutes() []route { return nil }
