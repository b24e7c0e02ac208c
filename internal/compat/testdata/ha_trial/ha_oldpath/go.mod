module haoldpath

go 1.21.0

require github.com/JianFeeeee/homeagentsdk v0.0.0

replace github.com/JianFeeeee/homeagentsdk => ../../
