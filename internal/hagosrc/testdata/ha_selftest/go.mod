module selftest

go 1.25.0

require gitcode.com/JianFeeeee/homeagent-sdk v0.0.0

replace gitcode.com/JianFeeeee/homeagent-sdk => ../../does/not/exist/homeagent-sdk
