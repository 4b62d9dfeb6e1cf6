// The pages' only script, and nothing depends on it: copy buttons (the text is selectable anyway)
// and the progress of a file upload (the form posts as well without it).
(function () {
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    var status = button.parentElement.querySelector('.copied');
    if (!source || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.value).then(
        function () { status.textContent = 'Copied.'; },
        function () { status.textContent = 'Copy failed: select the text and copy it.'; }
      );
    });
  });

  // An upload sent by XMLHttpRequest to say how far it is; its answer is a redirect to the
  // preview (followed), or the form again with what to correct, which replaces this page.
  document.querySelectorAll('form[data-upload]').forEach(function (form) {
    var progress = form.querySelector('.progress');
    if (!progress || !window.FormData || !window.XMLHttpRequest) return;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = form.querySelector('button[type="submit"]');
      var request = new XMLHttpRequest();
      request.open('POST', form.action);
      request.upload.addEventListener('progress', function (step) {
        if (step.lengthComputable) progress.textContent = 'Uploading: ' + Math.floor((step.loaded / step.total) * 100) + ' %';
      });
      request.addEventListener('load', function () {
        if (request.status === 200 && request.responseURL.indexOf('/preview') !== -1) return window.location.assign(request.responseURL);
        document.open();
        document.write(request.responseText);
        document.close();
      });
      request.addEventListener('error', function () {
        button.disabled = false;
        progress.textContent = 'The upload failed. Check your connection and try again.';
      });
      button.disabled = true;
      progress.textContent = 'Uploading: 0 %';
      request.send(new FormData(form));
    });
  });
})();
