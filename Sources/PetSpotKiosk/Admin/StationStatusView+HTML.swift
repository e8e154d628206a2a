extension StationStatusView {
    /// `/admin/status` as HTML.
    var html: HTML {
        let rows = { (rows: [Row]) -> HTML in
            rows.html { "<tr><th scope=\"row\">\($0.label)</th><td id=\"admin.\($0.id)\">\($0.value)</td></tr>" }
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Station status · PetSpot</title>
            <link rel="stylesheet" href="/static/kiosk.css">
            </head>
            <body>
            <main id="main">
            <section class="card" aria-labelledby="admin.title">
              <h1 id="admin.title">Station status</h1>
              <p class="hint">Report outbox, read \(readAt). Details: \
            <code>petspot-report outbox --config /etc/petspot/kiosk.toml</code></p>
              \(problem.html { "<p class=\"toast\" role=\"alert\" id=\"admin.problem\">\($0)</p>" })
              <table class="status" id="admin.outbox">
                \(rows(self.rows))
              </table>
            </section>
            <section class="card" aria-labelledby="admin.kiosk.title">
              <h2 id="admin.kiosk.title">Kiosk</h2>
              <table class="status" id="admin.kiosk">
                \(rows(kiosk))
                \(locationRemedy.html { """
            <tr><th scope="row">To allow the GPS button</th><td><code id="admin.locationRemedy">\($0)</code></td></tr>
            """ })
              </table>
            </section>
            </main>
            </body>
            </html>

            """
    }
}
