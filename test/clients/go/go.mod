module bookclients/go

go 1.22

require github.com/icholy/digest v1.2.0
