import AsyncHTTPClient
let stubClient: HTTPClient? = nil
