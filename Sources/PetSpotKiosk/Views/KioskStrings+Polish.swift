import PetSpotLocation
import PetSpotReport

extension KioskStrings {
    /// The Polish texts (seed 002 asks for English and Polish).
    public static let polish: KioskStrings = {
        var t = KioskStrings()
        t.language = "pl"
        t.languageName = "Polski"

        t.appTitle = "PetSpot: zgłoś znalezione zwierzę"
        t.stepFormat = "Krok {n} z 3"
        t.continueButton = "Dalej"
        t.backButton = "Wstecz"
        t.cancelReport = "Anuluj zgłoszenie"
        t.toastErrors = "Popraw pola zaznaczone poniżej"
        t.languageLabel = "Język"
        t.largeTextButton = "Większy tekst"
        t.requiredMark = "wymagane"

        t.welcomeTitle = "Znalazłeś zwierzę?"
        t.welcomeBody =
            "Zgłoś je tutaj w trzech krótkich krokach: zdjęcie, to, co wiesz o zwierzęciu, i kontakt do Ciebie dla właściciela."
        t.startButton = "Zgłoś znalezione zwierzę"
        t.stationBusy = "Stanowisko jest teraz zajęte. Spróbuj ponownie za chwilę."
        t.privacyFormat =
            "To wspólny ekran. Wszystko, co wpiszesz, zostanie usunięte po wysłaniu lub anulowaniu albo po {n} sekundach bezczynności."

        t.photoTitle = "Dodaj zdjęcie"
        t.photoBody = "Aktualne zdjęcie jest wymagane, aby przejść dalej."
        t.photoPick = "Dotknij, aby dodać zdjęcie"
        t.photoTryAgain = "Spróbuj ponownie"
        t.photoPickerCancelled = "Wybierz zdjęcie, aby przejść dalej – możesz wybrać je ponownie w każdej chwili."
        t.photoRequiredTitle = "Wymagane zdjęcie"
        t.photoRequiredMessage = "Zanim przejdziesz dalej, dołącz plik JPG, PNG, HEIC, GIF lub WEBP."
        t.photoHint = "JPG, PNG, HEIC, GIF lub WEBP, do 10 MB"
        t.uploadButton = "Prześlij zdjęcie"
        t.cameraOpen = "Zrób zdjęcie aparatem"
        t.cameraCapture = "Zrób zdjęcie"
        t.cameraClose = "Zamknij aparat"
        t.cameraViewLabel = "Podgląd z aparatu: pokaż zwierzę przed aparatem"
        t.cameraHint = "Pokaż zwierzę przed aparatem, a potem dotknij „Zrób zdjęcie”."
        t.cameraMissing = "Aparat teraz nie działa. Poproś obsługę o pomoc."
        t.cameraRefused = "Ta stacja nie może teraz używać aparatu. Poproś obsługę o pomoc."
        t.uploading = "Przesyłanie…"
        t.photoAdded = "Dodano zdjęcie"
        t.photoFileName = "Nazwa pliku"
        t.photoSize = "Rozmiar"
        t.photoDimensions = "Wymiary"
        t.removeButton = "Usuń"
        t.photoTooLargeFormat =
            "Zdjęcie jest za duże: to stanowisko przechowuje do wysłania zgłoszenia zdjęcia o rozmiarze najwyżej {n} MB"
        t.photoUnsupported = "Wybierz zdjęcie JPG, PNG, HEIC, GIF lub WEBP"
        t.photoEmpty = "Plik zdjęcia jest pusty"
        t.photoSaveFailed =
            "Nie udało się zapisać zdjęcia. Spróbuj ponownie, a jeśli to się powtórzy, powiedz o tym obsłudze."
        t.photoStorageFull = "Pamięć stanowiska jest pełna, więc nie można zachować zdjęcia. Powiedz o tym obsłudze."
        t.photoTooManyPixelsFormat = "Zdjęcie ma za dużo pikseli dla tej stacji (najwyżej {n} megapikseli)."
        t.photoDamaged = "Zdjęcie wygląda na uszkodzone i nie da się go odczytać. Spróbuj innego."
        t.photoRotated =
            "To zdjęcie jest oznaczone jako obrócone lub odbite i nie da się go pokazać prosto. Wybierz zdjęcie JPG lub HEIC."
        t.photoPreviewAlt = "Dodane zdjęcie"

        t.detailsTitle = "Informacje o zwierzęciu"
        t.detailsBody = "Powiedz nam, co wiesz o znalezionym zwierzęciu."
        t.dateLabel = "Data znalezienia"
        t.speciesLabel = "Gatunek"
        t.speciesPlaceholder = "Wybierz"
        t.speciesDog = "Pies"
        t.speciesCat = "Kot"
        t.speciesBird = "Ptak"
        t.speciesRabbit = "Królik"
        t.speciesRodent = "Gryzoń"
        t.speciesReptile = "Gad"
        t.speciesOther = "Inne"
        t.raceLabel = "Rasa (opcjonalnie)"
        t.racePlaceholder = "np. golden retriever"
        t.genderLabel = "Płeć"
        t.genderMale = "Samiec"
        t.genderFemale = "Samica"
        t.ageLabel = "Wiek (opcjonalnie)"
        t.chipLabel = "Numer mikroczipa z obroży (opcjonalnie)"
        t.petNameLabel = "Imię zwierzęcia (opcjonalnie)"
        t.locationLegend = "Miejsce znalezienia"
        t.gpsButton = "Użyj lokalizacji tego stanowiska"
        t.gpsLocating = "Ustalanie położenia…"
        t.latitudeLabel = "Szerokość geograficzna"
        t.latitudePlaceholder = "np. 52.2297"
        t.longitudeLabel = "Długość geograficzna"
        t.longitudePlaceholder = "np. 21.0122"
        t.gpsSuccess = "Lokalizacja GPS pobrana"
        t.gpsAccuracyFormat = "dokładność ±{n} m"
        t.gpsApproximate = "przybliżona"
        t.descriptionLabel = "Dodatkowy opis (opcjonalnie)"
        t.descriptionPlaceholder = "Szczegóły, które pomogą rozpoznać zwierzę..."
        t.counterLeftFormat = "{count}/{max} – pozostało znaków: {n}"

        t.gpsOther = "Lokalizacja jest niedostępna. Wpisz współrzędne ręcznie."

        t.deniedMessage =
            "To stanowisko nie może udostępnić swojej lokalizacji. Wpisz współrzędne albo poproś o pomoc obsługę."
        t.restrictedMessage =
            "To stanowisko nie może udostępnić swojej lokalizacji. Wpisz współrzędne albo poproś o pomoc obsługę."
        t.alertCancel = "Anuluj"
        t.alertGoSettings = "Przejdź do ustawień"
        t.settingsTitle = "Kto może to zmienić?"
        t.settingsNotHere =
            "Może to zmienić tylko obsługa stanowiska, nie na tym ekranie. Wpisz współrzędne albo poproś obsługę o pomoc."
        t.alertClose = "Zamknij"

        t.contactTitle = "Dane kontaktowe"
        t.contactBody = "Podaj swoje dane kontaktowe, aby właściciel zwierzęcia mógł się z Tobą skontaktować."
        t.phoneLabel = "Twój numer telefonu"
        t.phonePlaceholder = "+48 600 000 000"
        t.emailLabel = "Twój e-mail"
        t.emailPlaceholder = "email@example.com"
        t.rewardLabel = "Nagroda (opcjonalnie)"
        t.caregiverPhoneLabel = "Numer telefonu opiekuna (opcjonalnie)"
        t.addressLabel = "Obecny adres zwierzęcia (opcjonalnie)"
        t.addressPlaceholder = "Pełny adres, pod którym zwierzę teraz przebywa"
        t.submitButton = "Wyślij zgłoszenie"
        t.submitFailed =
            "Nie udało się zapisać zgłoszenia. Spróbuj ponownie, a jeśli to się powtórzy, powiedz o tym obsłudze."
        t.submitStorageFull = "Pamięć stanowiska jest pełna, więc nie można zapisać zgłoszenia. Powiedz o tym obsłudze."

        t.thanksTitle = "Dziękujemy!"
        t.thanksBody = "Zgłoszenie zostało zapisane i zostanie wysłane do PetSpot. Numer zgłoszenia:"
        t.thanksNoteFormat = "Zapisz go albo zrób mu zdjęcie. Ten ekran zacznie od nowa za {n} sekund."
        t.startOver = "Zacznij od nowa"

        t.stillThereTitle = "Jesteś tam jeszcze?"
        t.stillThereFormat = "Aby chronić Twoje dane, to zgłoszenie zostanie wyczyszczone za {n} sekund."
        t.stillHere = "Tak, jestem"
        t.expiredTitle = "Ta strona wygasła"
        t.expiredBody = "Nic z poprzedniego zgłoszenia nie zostało zachowane. Zacznij od nowa."

        t.messages = [
            FieldMessages.photoRequired: "Zdjęcie jest wymagane",
            FieldMessages.dateRequired: "Wybierz datę",
            FieldMessages.dateInvalid: "Podaj datę w formacie RRRR-MM-DD",
            FieldMessages.dateInFuture: "Data nie może być z przyszłości",
            FieldMessages.speciesRequired: "Wybierz gatunek",
            FieldMessages.raceRequired: "Podaj rasę zwierzęcia",
            FieldMessages.genderRequired: "Wybierz płeć",
            FieldMessages.ageWholeNumber: "Wiek musi być liczbą całkowitą",
            FieldMessages.ageRange: "Wiek musi mieścić się w przedziale od 0 do 40",
            FieldMessages.latitudeRequired: "Uzupełnij szerokość geograficzną",
            FieldMessages.latitudeNotNumber: "Szerokość geograficzna musi być liczbą",
            FieldMessages.latitudeRange: "Szerokość geograficzna musi mieścić się w przedziale od -90 do 90",
            FieldMessages.longitudeRequired: "Uzupełnij długość geograficzną",
            FieldMessages.longitudeNotNumber: "Długość geograficzna musi być liczbą",
            FieldMessages.longitudeRange: "Długość geograficzna musi mieścić się w przedziale od -180 do 180",
            FieldMessages.petNameTooLong: "Imię może mieć najwyżej 100 znaków",
            FieldMessages.phoneRequired: "Wpisz co najmniej 7 cyfr",
            FieldMessages.emailRequired: "Wpisz poprawny adres e-mail",
            FieldMessages.rewardTooLong: "Nagroda może mieć najwyżej 200 znaków",
            KioskStrings.phoneTooLong: "Wpisz najwyżej 11 cyfr",
            GPSFailure(.locationUnknown).message:
                "Nie udało się ustalić położenia. Spróbuj ponownie albo wpisz współrzędne ręcznie.",
            GPSFailure(.sourceUnavailable).message: "Odbiornik GPS jest teraz niedostępny. Wpisz współrzędne ręcznie.",
            GPSFailure(.daemonUnreachable("")).message: "Usługa lokalizacji nie działa. Wpisz współrzędne ręcznie.",
            GPSFailure(.promptUnavailable).message:
                "Nikt nie odpowiedział na prośbę o dostęp do lokalizacji. Spróbuj ponownie albo wpisz współrzędne ręcznie.",
            GPSFailure(.tooManyClients).message:
                "Usługa lokalizacji jest zajęta. Spróbuj za chwilę albo wpisz współrzędne ręcznie.",
            GPSFailure.invalidCoordinate.message: "Otrzymane położenie jest poza zakresem. Wpisz współrzędne ręcznie.",
            PermissionAlert(status: .denied, client: nil).title: "Brak dostępu do lokalizacji",
            PermissionAlert(status: .restricted, client: nil).title: "Lokalizacja jest zablokowana",
        ]
        return t
    }()
}
