// The photo step: the upload with progress, and the station's camera.
(function () {
  "use strict";
  var kiosk = window.petspotKiosk;
  var byId = kiosk.byId, csrf = kiosk.csrf;

  // MARK: Photo: upload as soon as it is picked, with progress.
  var photoForm = byId("photoForm");
  var fileInput = byId("animalPhoto.fileInput.input");
  var cancelled = byId("animalPhoto.pickerCancelled.text");
  if (photoForm && fileInput && cancelled) {
    // The picker closed without a photo: seed 002's helper ("you can browse again anytime").
    fileInput.addEventListener("cancel", function () {
      cancelled.hidden = false;
      cancelled.textContent = cancelled.textContent;  // announced again by the status region
    });
  }
  // Sends one photo (picked or taken) as the form would, with progress; the
  // answer names the page to show next (the step again, with its card or error).
  function uploadPhoto(file, name) {
    if (cancelled) { cancelled.hidden = true; }
    var problem = byId("animalPhoto.fileInput.error");
    var limit = parseInt(photoForm.getAttribute("data-max-bytes"), 10);
    if (file.size > limit) {
      problem.textContent = photoForm.getAttribute("data-too-large").replace("{n}", String(Math.floor(limit / 1048576)));
      problem.hidden = false;
      byId("animalPhoto.browse.label").textContent = photoForm.getAttribute("data-retry");
      fileInput.value = "";
      return;
    }
    var status = byId("animalPhoto.upload.status");
    var bar = byId("animalPhoto.upload.progress");
    status.hidden = false;
    problem.hidden = true;
    var data = new FormData(photoForm);
    data.set("photo", file, name || file.name || "photo");
    var request = new XMLHttpRequest();
    request.open("POST", photoForm.action);
    request.setRequestHeader("Accept", "application/json");
    request.setRequestHeader("X-CSRF-Token", csrf);
    request.upload.addEventListener("progress", function (event) {
      if (event.lengthComputable) { bar.value = Math.round(100 * event.loaded / event.total); }
    });
    request.addEventListener("load", function () {
      var next = "/report/photo";
      try { next = JSON.parse(request.responseText).next || next; } catch (ignored) { /* a page: reload the step */ }
      location.href = next;
    });
    request.addEventListener("error", function () { location.href = "/report/photo"; });
    request.send(data);
  }
  if (photoForm && fileInput && window.XMLHttpRequest) {
    fileInput.addEventListener("change", function () {
      var file = fileInput.files && fileInput.files[0];
      if (file) { uploadPhoto(file); }
    });
  }

  // MARK: Photo: the station's camera (SPEC §7). "Take a photo" opens a live view (the rear camera
  // when there is a choice); "Take the picture" draws the current frame to a canvas and sends it as a
  // JPEG through the same upload, so it meets the same checks, draft and confirmation card. The
  // camera is switched off (every track stopped) as soon as the view closes, the picture is taken
  // or the page goes away. No camera, or one the browser refuses, is said in plain words.
  var cameraButton = byId("animalPhoto.camera");
  var cameraView = byId("animalPhoto.cameraView");
  var video = byId("animalPhoto.camera.video");
  var stream = null;
  // While the live view is open it is the only way shown (a file chooser beside it would distract).
  var fileSource = photoForm ? photoForm.querySelector(".file-source") : null;
  function stopCamera() {
    if (stream) { stream.getTracks().forEach(function (track) { track.stop(); }); }
    stream = null;
    if (video) { video.srcObject = null; }
    if (cameraView) { cameraView.hidden = true; }
    if (fileSource) { fileSource.hidden = false; }
    var start = byId("animalPhoto.cameraStart");
    if (start) { start.hidden = false; }
  }
  function cameraProblem(error) {
    var problem = byId("animalPhoto.fileInput.error");
    var refused = error && (error.name === "NotAllowedError" || error.name === "SecurityError");
    problem.textContent = photoForm.getAttribute(refused ? "data-camera-refused" : "data-camera-missing");
    problem.hidden = false;
    stopCamera();
    cameraButton.focus();
  }
  if (photoForm && cameraButton && cameraView && video) {
    cameraButton.addEventListener("click", function () {
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { cameraProblem(null); return; }
      cameraButton.disabled = true;
      navigator.mediaDevices.getUserMedia({
        audio: false,
        video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } }
      }).then(function (opened) {
        stream = opened;
        video.srcObject = opened;
        byId("animalPhoto.fileInput.error").hidden = true;
        byId("animalPhoto.cameraStart").hidden = true;
        if (fileSource) { fileSource.hidden = true; }
        cameraView.hidden = false;
        return video.play();
      }).then(function () {
        byId("animalPhoto.capture").focus();
      }).catch(cameraProblem).finally(function () { cameraButton.disabled = false; });
    });
    byId("animalPhoto.camera.close").addEventListener("click", function () { stopCamera(); cameraButton.focus(); });
    byId("animalPhoto.capture").addEventListener("click", function () {
      if (!stream || !video.videoWidth) { return; }
      var canvas = document.createElement("canvas");
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
      stopCamera();
      byId("animalPhoto.cameraStart").hidden = true;
      canvas.toBlob(function (blob) {
        if (!blob) { cameraProblem(null); return; }
        uploadPhoto(blob, "camera.jpg");
      }, "image/jpeg", 0.9);
    });
    window.addEventListener("pagehide", stopCamera);
  }
})();
