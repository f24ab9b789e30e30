module github.com/chobo-lang/chobo

go 1.23
