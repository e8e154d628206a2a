/// Every page of the kiosk as HTML, from its ``PageView``: the frame (head,
/// top bar with the step, the display and language switches, toast,
/// footer, idle dialog) around one part. Plain values in, markup out; each
/// value is escaped by ``HTML``.
enum PageHTML {
    /// The whole page.
    static func page(_ page: PageView) -> HTML {
        let t = page.t
        let idle = page.idle
        let display: HTML = """
            <button type="submit" name="display" value="\(page.largeText ? "standard" : "large")" \
            id="display.largeText.tap" class="lang display" aria-pressed="\(page.largeText)">\
            <span aria-hidden="true">Aa </span>\(t.largeTextButton)</button>
            """
        return """
            <!DOCTYPE html>
            <html lang="\(t.language)"\(if: page.largeText, " class=\"large\"")>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(page.title) · PetSpot</title>
            <link rel="stylesheet" href="/static/kiosk.css">
            \(PageRenderer.scripts.html { "<script src=\"/static/\($0)\" defer></script>\n" })
            \(idle.html { "<noscript><meta http-equiv=\"refresh\" content=\"\($0.promptAfter);url=/still-there\"></noscript>" })
            \(page.stillThere.html { "<noscript><meta http-equiv=\"refresh\" content=\"\($0.resetAfter);url=/\"></noscript>" })
            \(page.thanks.html { "<noscript><meta http-equiv=\"refresh\" content=\"\($0.restartAfter);url=/\"></noscript>" })
            \(page.backToDefault.html { "<noscript><meta http-equiv=\"refresh\" content=\"\($0.after);url=/\"></noscript>" })
            </head>
            <body data-csrf="\(page.csrf)"\
            \(idle.html { " data-idle-prompt=\"\($0.promptAfter)\" data-idle-reset=\"\($0.resetAfter)\"" })\
            \(page.stillThere.html { " data-home-after=\"\($0.resetAfter)\"" })\
            \(page.thanks.html { " data-home-after=\"\($0.restartAfter)\"" })\
            \(page.backToDefault.html { " data-home-after=\"\($0.after)\"" })>
            <header class="topbar">
              <div class="brand" aria-hidden="true">PetSpot</div>
            \(page.step.html(progress))\
              \(if: page.languageByLink, """
            <form autocomplete="off" method="get" action="/" class="display-toggle">
                <input type="hidden" name="lang" value="\(t.language)">
                \(display)
              </form>
            """)
              \(if: !page.languageByLink, """
            <form autocomplete="off" method="post" action="/display?_csrf=\(page.csrf)" class="display-toggle">
                <input type="hidden" name="return" value="\(page.path)">
                \(display)
              </form>
            """)
              \(if: page.languageByLink, """
            <form autocomplete="off" method="get" action="/" class="languages" aria-label="\(t.languageLabel)">
                \(if: page.largeText, "<input type=\"hidden\" name=\"display\" value=\"large\">")
            """)
              \(if: !page.languageByLink, """
            <form autocomplete="off" method="post" action="/language?_csrf=\(page.csrf)" class="languages" \
            aria-label="\(t.languageLabel)">
                <input type="hidden" name="return" value="\(page.path)">
            """)
                \(page.languages.html { language in
                    """
                    <button type="submit" name="lang" value="\(language.code)" id="\(language.id)"\
                    \(page.languageForm.html { " form=\"\($0)\"" }) lang="\(language.code)" \
                    class="lang\(if: language.current, " current")" aria-pressed="\(language.current)">\
                    \(language.label)</button>
                    """
                })
              </form>
            </header>
            <main id="main">
            \(page.toast.html { toast in
                """
                <div class="toast" role="alert" id="\(page.toastID)"\
                \(page.toastDismissAfter.html { " data-dismiss-after=\"\($0)\"" })>\
                \(page.toastTitle.html { "<strong class=\"toast-title\">\($0)</strong> " })\(toast)</div>
                """
            })
            \(page.welcome.html { welcome(page, $0) })
            \(page.photo.html { FormHTML.photo(page, $0) })
            \(page.details.html { FormHTML.details(page, $0) })
            \(page.contact.html { FormHTML.contact(page, $0) })
            \(page.thanks.html { thanks(page, $0) })
            \(page.stillThere.html { stillThere(page, $0) })
            \(if: page.expired, expired(page))
            </main>
            \(if: page.showCancel, """
            <footer class="footer">
              <form autocomplete="off" method="post" action="/report/cancel?_csrf=\(page.csrf)">
                <button type="submit" class="button quiet" id="reportFound.cancelButton.tap">\(t.cancelReport)</button>
              </form>
            </footer>

            """)\
            \(if: idle != nil, idleDialog(t))
            </body>
            </html>

            """
    }

    /// "Step 2 of 3" and the three dots.
    static func progress(_ step: StepView) -> HTML {
        """
          <div class="progress" id="reportFound.progress">
            <span class="progress-label" id="reportFound.progress.label">\(step.label)</span>
            <ol class="dots" aria-hidden="true">\(step.dots.html { dot in
                "<li class=\"dot\(if: dot.current, " current")\(if: dot.done, " done")\">\(dot.number)</li>"
            })</ol>
          </div>

        """
    }

    static func welcome(_ page: PageView, _ welcome: WelcomeView) -> HTML {
        """
        <section class="card center welcome" aria-labelledby="welcome.title">
          <h1 id="welcome.title">\(page.t.welcomeTitle)</h1>
          <p class="lead">\(page.t.welcomeBody)</p>
          <form autocomplete="off" method="post" action="/start">
            <input type="hidden" name="lang" value="\(welcome.language)">
            \(if: page.largeText, "<input type=\"hidden\" name=\"display\" value=\"large\">")
            <button type="submit" class="button primary big" id="welcome.startButton.tap">\(page.t.startButton)</button>
          </form>
          <p class="hint" id="welcome.privacy.text">\(welcome.privacy)</p>
        </section>

        """
    }

    static func thanks(_ page: PageView, _ thanks: ThanksView) -> HTML {
        """
        <section class="card center" aria-labelledby="thankYou.title">
          <h1 id="thankYou.title">\(page.t.thanksTitle)</h1>
          <p class="lead">\(page.t.thanksBody)</p>
          <p class="reference" id="thankYou.reference.label">\(thanks.reference)</p>
          <p class="hint">\(thanks.note)</p>
          <a class="button primary big" href="/" id="thankYou.startOverButton.tap">\(page.t.startOver)</a>
        </section>

        """
    }

    /// "Still there?" without JavaScript.
    static func stillThere(_ page: PageView, _ stillThere: StillThereView) -> HTML {
        """
        <section class="card center" aria-labelledby="idlePrompt.title">
          <h1 id="idlePrompt.title">\(page.t.stillThereTitle)</h1>
          <p class="lead" id="idlePrompt.message">\(stillThere.message)</p>
          <div class="actions center">
            <form autocomplete="off" method="post" action="/report/cancel?_csrf=\(page.csrf)">
              <button type="submit" class="button secondary" id="idlePrompt.startOverButton.tap">\(page.t.startOver)</button>
            </form>
            <form autocomplete="off" method="post" action="/still-there?_csrf=\(page.csrf)">
              <button type="submit" class="button primary" id="idlePrompt.stillHereButton.tap">\(page.t.stillHere)</button>
            </form>
          </div>
        </section>

        """
    }

    static func expired(_ page: PageView) -> HTML {
        """
        <section class="card center" aria-labelledby="expired.title">
          <h1 id="expired.title">\(page.t.expiredTitle)</h1>
          <p class="lead">\(page.t.expiredBody)</p>
          <a class="button primary big" href="/" id="expired.startOverButton.tap">\(page.t.startOver)</a>
        </section>

        """
    }

    /// The script's "Still there?" dialog (hidden until the idle time is nearly up).
    static func idleDialog(_ t: KioskStrings) -> HTML {
        """
        <div class="modal-backdrop" id="idlePrompt" hidden>
          <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby="idlePrompt.title" \
        aria-describedby="idlePrompt.message">
            <h2 id="idlePrompt.title">\(t.stillThereTitle)</h2>
            <p id="idlePrompt.message" data-format="\(t.stillThereFormat)"></p>
            <div class="modal-actions">
              <button type="button" class="button primary" id="idlePrompt.stillHereButton.tap">\(t.stillHere)</button>
            </div>
          </div>
        </div>

        """
    }
}
